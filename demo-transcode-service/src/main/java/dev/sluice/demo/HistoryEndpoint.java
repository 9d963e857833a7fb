package dev.sluice.demo;

import io.javalin.http.Context;
import java.util.Map;

/** The light lookup beside the heavy jobs: what an archive index would answer about one piece of footage. */
final class HistoryEndpoint {

  private HistoryEndpoint() {}

  static void history(Context ctx) {
    String id = ctx.pathParam("id");
    if (id.length() > 64) {
      throw new BadRequest("id", id.substring(0, 64) + "...", "must be at most 64 characters");
    }
    String account = ctx.header("X-Account-Id");
    ctx.json(Map.of(
        "id",
        id,
        "account",
        account == null ? "anonymous" : account,
        "status",
        "archived",
        "renditions",
        new String[] {"1080p", "720p", "480p"}));
  }
}
