package dev.sluice.loadtest.engine;

import java.util.concurrent.CompletableFuture;

/** Sends one attempt of a request; completes with the reply or exceptionally on an I/O failure. */
@FunctionalInterface
public interface Transport {
  CompletableFuture<Reply> send(Arrival request);
}
