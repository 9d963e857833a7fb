package dev.sluice.rules;

import dev.sluice.request.RequestInfo;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** A request as the HTTP layer would describe it. */
final class TestRequest implements RequestInfo {
  private final String method;
  private final String path;
  private String ip = "10.0.0.1";
  private String account;
  private String device;
  private final Map<String, String> headers = new HashMap<>();

  private TestRequest(String method, String path) {
    this.method = method;
    this.path = path;
  }

  static TestRequest of(String method, String path) {
    return new TestRequest(method, path);
  }

  TestRequest ip(String value) {
    this.ip = value;
    return this;
  }

  TestRequest account(String value) {
    this.account = value;
    return this;
  }

  TestRequest device(String value) {
    this.device = value;
    return this;
  }

  TestRequest header(String name, String value) {
    headers.put(name.toLowerCase(Locale.ROOT), value);
    return this;
  }

  @Override
  public String method() {
    return method;
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public String clientIp() {
    return ip;
  }

  @Override
  public Optional<String> account() {
    return Optional.ofNullable(account);
  }

  @Override
  public Optional<String> device() {
    return Optional.ofNullable(device);
  }

  @Override
  public Optional<String> header(String name) {
    return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT)));
  }
}
