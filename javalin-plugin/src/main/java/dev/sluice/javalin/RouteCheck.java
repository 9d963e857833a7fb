package dev.sluice.javalin;

import dev.sluice.config.UnknownKeys;
import dev.sluice.request.ResourcePattern;
import dev.sluice.rules.Rule;
import io.javalin.config.JavalinState;
import io.javalin.router.ParsedEndpoint;
import io.javalin.websocket.WsHandlerEntry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Whether a limiter's path or a rule's resource reaches a route of the application: a misspelt path
 * ({@code /api/transcod}) would otherwise start without a word while the real endpoint runs
 * unguarded.
 *
 * <p>A pattern reaches a route when some request path matches both: {@code /api/history/*} and the
 * route {@code /api/history/{id}} do, {@code /api/**} reaches every route under {@code /api}, and a
 * wildcard route ({@code /*}, {@code /files/<path>}) is reached by every pattern under it, so an
 * application that routes through a catch-all gets no false alarm. A rule with a method needs a
 * route with that method ({@code HEAD} is answered by a {@code GET} route, {@code OPTIONS} by any
 * route, as CORS preflights are). Websocket routes count, for any method.
 *
 * <p>The check is skipped, saying why, where the routes do not tell what the application serves:
 * when it declares no route at all (it answers in before-handlers, a servlet or a Jetty handler of
 * its own) or serves static files (any path may be a file).
 */
final class RouteCheck {

  /** A route: its method ({@code null} for a websocket, reached by any) and Javalin path. */
  record Route(String method, String path) {}

  private final List<Route> routes;
  private final boolean caseInsensitive;
  private final String skipped;

  RouteCheck(List<Route> routes, boolean caseInsensitive, boolean staticFiles) {
    this(routes, routes.isEmpty(), caseInsensitive, staticFiles);
  }

  /**
   * @param noAppRoutes whether the application declares no route of its own (Sluice's live page
   *     is not one)
   */
  RouteCheck(
      List<Route> routes, boolean noAppRoutes, boolean caseInsensitive, boolean staticFiles) {
    this.routes = List.copyOf(routes);
    this.caseInsensitive = caseInsensitive;
    if (noAppRoutes) {
      skipped = "the application declares no route (it answers in before-handlers or outside"
          + " Javalin's router), so Sluice cannot tell which paths it serves";
    } else if (staticFiles) {
      skipped = "the application serves static files, so any path may be one";
    } else {
      skipped = null;
    }
  }

  /**
   * The routes of a configured application, once every plugin has added its own.
   *
   * @param livePage the path of Sluice's own live page, whose routes are not the application's
   */
  static RouteCheck of(JavalinState state, Optional<String> livePage) {
    List<Route> routes = new ArrayList<>();
    for (ParsedEndpoint e : state.internalRouter.allHttpHandlers()) {
      if (e.endpoint.method.isHttpMethod()) {
        routes.add(new Route(e.endpoint.method.name(), e.endpoint.path));
      }
    }
    for (WsHandlerEntry e : state.internalRouter.allWsHandlers()) {
      routes.add(new Route(null, e.getPath()));
    }
    String page =
        livePage.map(p -> p.endsWith("/") ? p.substring(0, p.length() - 1) : p).orElse(null);
    boolean noAppRoutes = routes.stream()
        .allMatch(r -> page != null && (r.path().equals(page) || r.path().startsWith(page + "/")));
    return new RouteCheck(
        routes, noAppRoutes, state.router.caseInsensitiveRoutes, state.resourceHandler != null);
  }

  /** Why the check does not run for this application, or empty when it does. */
  Optional<String> skipped() {
    return Optional.ofNullable(skipped);
  }

  /**
   * What is wrong with a limiter's path: empty when it reaches a route (or the check is skipped),
   * else "matches no route of the application" with the nearest route.
   */
  Optional<String> limiterProblem(String name, ResourcePattern path) {
    if (skipped != null || reaches(path, null)) {
      return Optional.empty();
    }
    return Optional.of("limiter '" + name + "' matches no route of the application, so it guards"
        + " nothing" + didYouMean(path));
  }

  /** What is wrong with a rule's resource and method, as {@link #limiterProblem}. */
  Optional<String> ruleProblem(Rule rule) {
    if (skipped != null) {
      return Optional.empty();
    }
    String method = rule.method().orElse(null);
    String what =
        "rule '" + rule.id() + "' (" + (method == null ? "" : method + " ") + rule.resource() + ")";
    if (reaches(rule.resource(), method)) {
      return Optional.empty();
    }
    if (method != null && reaches(rule.resource(), null)) {
      List<String> there = routes.stream()
          .filter(r -> r.method() != null && overlaps(rule.resource(), r.path()))
          .map(Route::method)
          .distinct()
          .toList();
      return Optional.of(what + " matches no " + method + " route of the application; the routes"
          + " on its paths answer " + String.join(", ", there));
    }
    return Optional.of(what + " matches no route of the application" + didYouMean(rule.resource()));
  }

  private boolean reaches(ResourcePattern pattern, String method) {
    for (Route r : routes) {
      if (methodFits(method, r.method()) && overlaps(pattern, r.path())) {
        return true;
      }
    }
    return false;
  }

  private static boolean methodFits(String wanted, String route) {
    return wanted == null
        || route == null
        || wanted.equals("OPTIONS")
        || wanted.equals(route)
        || (wanted.equals("HEAD") && route.equals("GET"));
  }

  /** "; did you mean /api/transcode?" when a route is near enough to be the one meant, or "". */
  private String didYouMean(ResourcePattern pattern) {
    // compare like with like: a route's parameters read as the pattern's one-segment wildcard
    Map<String, String> byShape = new LinkedHashMap<>();
    for (Route r : routes) {
      byShape.putIfAbsent(shape(r.path()), r.path());
    }
    String nearest = UnknownKeys.nearest(pattern.toString(), byShape.keySet());
    return nearest == null ? "" : "; did you mean " + byShape.get(nearest) + "?";
  }

  private static String shape(String routePath) {
    StringBuilder out = new StringBuilder();
    for (String segment : ResourcePattern.segments(routePath)) {
      out.append('/')
          .append(segment.indexOf('{') >= 0 || segment.indexOf('<') >= 0 ? "*" : segment);
    }
    return out.length() == 0 ? "/" : out.toString();
  }

  /** A route's segment: a literal, any one segment, or any number of segments (none included). */
  private enum Kind {
    LITERAL,
    ONE,
    MANY
  }

  private record Segment(Kind kind, String text) {}

  /**
   * Javalin's path syntax: {@code {name}} is one segment, {@code <name>} may span slashes, a lone
   * {@code *} matches anything below, and a trailing {@code *} after a parameter means the path and
   * every path below it. A segment that mixes text and a parameter is taken as any one segment.
   */
  private static List<Segment> routeSegments(String path) {
    List<Segment> out = new ArrayList<>();
    for (String s : ResourcePattern.segments(path)) {
      if (s.equals("*") || s.indexOf('<') >= 0) {
        out.add(new Segment(Kind.MANY, s));
      } else if (s.indexOf('{') >= 0 || s.indexOf('*') >= 0) {
        out.add(new Segment(Kind.ONE, s));
        if (s.endsWith("}*")) {
          out.add(new Segment(Kind.MANY, "*"));
        }
      } else {
        out.add(new Segment(Kind.LITERAL, s));
      }
    }
    return out;
  }

  /** Whether some path matches both the pattern and the route. */
  boolean overlaps(ResourcePattern pattern, String routePath) {
    List<String> p = pattern.fixedSegments();
    List<Segment> r = routeSegments(routePath);
    // memo[i][j]: pattern from i and route from j were found not to overlap
    boolean[][] tried = new boolean[p.size() + 1][r.size() + 1];
    return overlaps(p, 0, pattern.isSubtree(), r, 0, tried);
  }

  private boolean overlaps(
      List<String> p, int i, boolean subtree, List<Segment> r, int j, boolean[][] tried) {
    if (tried[i][j]) {
      return false;
    }
    boolean result;
    if (i == p.size() && (subtree || j == r.size())) {
      // the pattern is used up: a subtree takes whatever the route still needs
      result = subtree || j == r.size();
    } else if (j < r.size() && r.get(j).kind() == Kind.MANY) {
      // the route's wildcard takes no segment, or one more of the pattern's
      result = overlaps(p, i, subtree, r, j + 1, tried)
          || (i < p.size() && overlaps(p, i + 1, subtree, r, j, tried))
          || (i == p.size() && subtree);
    } else if (i == p.size() || j == r.size()) {
      result = false;
    } else {
      result = segmentFits(p.get(i), r.get(j)) && overlaps(p, i + 1, subtree, r, j + 1, tried);
    }
    if (!result) {
      tried[i][j] = true;
    }
    return result;
  }

  private boolean segmentFits(String pattern, Segment route) {
    if (pattern.equals(ResourcePattern.ANY_ONE) || route.kind() != Kind.LITERAL) {
      return true;
    }
    return caseInsensitive
        ? pattern.toLowerCase(Locale.ROOT).equals(route.text().toLowerCase(Locale.ROOT))
        : pattern.equals(route.text());
  }
}
