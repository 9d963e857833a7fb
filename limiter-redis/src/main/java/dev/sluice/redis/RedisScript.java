package dev.sluice.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * A Lua script another module runs in Redis through a {@link RedisConnection}: sent by its SHA-1
 * (EVALSHA), its body only when the server does not know it yet. Immutable; make one per script and
 * keep it (its digest is computed once).
 */
public final class RedisScript {

  private final LuaScript lua;

  private RedisScript(LuaScript lua) {
    this.lua = lua;
  }

  /** The script {@code body}; {@code name} says which one it is in messages. */
  public static RedisScript of(String name, String body) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("script name must not be blank but was '" + name + "'");
    }
    if (body == null || body.isBlank()) {
      throw new IllegalArgumentException("script " + name + " must have a body");
    }
    return new RedisScript(LuaScript.of(name, body));
  }

  /**
   * The script {@code <name>.lua} shipped beside the class {@code beside} (in the same package of
   * the same jar).
   *
   * @throws IllegalStateException when the jar lacks it
   */
  public static RedisScript load(Class<?> beside, String name) {
    String resource = name + ".lua";
    try (InputStream in = beside.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            "script " + resource + " is missing beside " + beside.getName());
      }
      return of(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read script " + resource, e);
    }
  }

  /** The script's name. */
  public String name() {
    return lua.name();
  }

  LuaScript lua() {
    return lua;
  }

  @Override
  public String toString() {
    return lua.toString();
  }
}
