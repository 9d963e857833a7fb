package dev.sluice.loadtest.engine;

import java.util.Optional;

/**
 * What came back for one attempt.
 *
 * @param status HTTP status
 * @param retryAfter the raw {@code Retry-After} header, when present
 * @param body the response body (small: JSON or problem+json)
 */
public record Reply(int status, Optional<String> retryAfter, String body) {}
