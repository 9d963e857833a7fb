package dev.sluice.javalin;

import dev.sluice.micrometer.SluiceMeters;

/**
 * Sluice's Micrometer metrics; every name and tag is listed in the module's README (the meters of
 * {@link SluiceMeters}, the same at every door). Get it from {@link SluicePlugin#meterBinder()} and
 * bind it to any number of registries, before or after the server starts (or let {@link
 * SluiceConfig#meterRegistry} do it, which binds before any meter exists). A registry bound after
 * meters exist sees only what happens after; Micrometer logs a warning saying so.
 */
public final class SluiceMeterBinder extends SluiceMeters {

  SluiceMeterBinder() {}
}
