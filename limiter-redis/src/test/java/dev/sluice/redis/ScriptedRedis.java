package dev.sluice.redis;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A Redis whose script calls answer what a test says, for the paths a real server rarely takes
 * (NOSCRIPT, TRYAGAIN): each EVALSHA and EVAL is recorded and answered by {@code answer}.
 */
final class ScriptedRedis {

  /** One script call: EVALSHA or EVAL, the digest or body, its output type, keys and arguments. */
  record Call(
      String command,
      String script,
      ScriptOutputType output,
      List<String> keys,
      List<String> args) {}

  private final List<Call> calls = new ArrayList<>();
  private final Function<Call, CompletableFuture<Object>> answer;

  ScriptedRedis(Function<Call, CompletableFuture<Object>> answer) {
    this.answer = answer;
  }

  synchronized List<Call> calls() {
    return List.copyOf(calls);
  }

  // unchecked: the proxy is the interface it implements; FutureReturnValueIgnored: the answer's
  // callback completes the future handed back, whose own result is not needed
  @SuppressWarnings({"unchecked", "FutureReturnValueIgnored"})
  RedisScriptingAsyncCommands<String, String> commands() {
    return (RedisScriptingAsyncCommands<String, String>) Proxy.newProxyInstance(
        ScriptedRedis.class.getClassLoader(),
        new Class<?>[] {RedisScriptingAsyncCommands.class},
        (proxy, method, args) -> {
          String name = method.getName();
          if ((name.equals("evalsha") || name.equals("eval"))
              && args.length == 4
              && args[0] instanceof String script) {
            Call call = new Call(
                name,
                script,
                (ScriptOutputType) args[1],
                Arrays.asList((String[]) args[2]),
                Arrays.asList((String[]) args[3]));
            synchronized (this) {
              calls.add(call);
            }
            Answer<Object> future = new Answer<>();
            answer.apply(call).whenComplete((value, error) -> {
              if (error != null) {
                future.completeExceptionally(error);
              } else {
                future.complete(value);
              }
            });
            return future;
          }
          throw new UnsupportedOperationException(name);
        });
  }

  /** Lettuce's future type over a plain CompletableFuture. */
  static final class Answer<T> extends CompletableFuture<T> implements RedisFuture<T> {
    @Override
    public String getError() {
      return null;
    }

    @Override
    public boolean await(long timeout, TimeUnit unit) {
      return isDone();
    }
  }
}
