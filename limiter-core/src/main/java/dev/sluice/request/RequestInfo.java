package dev.sluice.request;

import java.util.Optional;

/**
 * What the HTTP layer knows of a request; the Javalin plugin implements it over its context.
 *
 * <p>An info is valid for the call it is handed to (a custom actor's extractor, a rule's key):
 * read what you need and keep the values, not the info. The plugin points one info per thread at
 * each request in turn, so a kept info would later describe another request, or none.
 */
public interface RequestInfo {

  /** The HTTP method, e.g. {@code GET}. */
  String method();

  /** The request path without the query string. */
  String path();

  /** The client's IP, already resolved by the HTTP layer (only trusted proxies may set it). */
  String clientIp();

  /** The account the request acts for, if known. */
  Optional<String> account();

  /** The device the request comes from, if known. */
  Optional<String> device();

  /** A request header's value, if present. */
  Optional<String> header(String name);

  /** Anything else the HTTP layer attached, for custom actors. */
  default Optional<Object> attribute(String name) {
    return Optional.empty();
  }
}
