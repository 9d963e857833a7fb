package dev.sluice.servlet;

import dev.sluice.http.DashboardPage;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletMapping;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * The filter's status JSON and live page as servlets. The filter lets every request mapped to a
 * servlet registered under {@link #STATUS} or {@link #DASHBOARD} pass its limiters and rules, like
 * health checks: the page is most needed when the service is saturated.
 */
final class OperatorPages {

  /** The name the status servlet is registered under. */
  static final String STATUS = "sluice-status";

  /** The name the live page's servlet is registered under. */
  static final String DASHBOARD = "sluice-dashboard";

  private OperatorPages() {}

  /** Whether {@code req} is for one of these servlets (registered under their names). */
  static boolean serves(HttpServletRequest req) {
    HttpServletMapping mapping = req.getHttpServletMapping();
    if (mapping == null) {
      return false;
    }
    String name = mapping.getServletName();
    return STATUS.equals(name) || DASHBOARD.equals(name);
  }

  /** Answers GET with the status JSON, wherever it is mapped. */
  static HttpServlet status(Supplier<String> json) {
    return new StatusServlet(json);
  }

  /**
   * Answers GET with the page at its mapping ({@code /sluice/dashboard/*}: the page at {@code
   * /sluice/dashboard}) and with the status JSON at {@code <that>/data}, where the page polls it.
   */
  static HttpServlet dashboard(Supplier<String> json) {
    return new DashboardServlet(json);
  }

  private static void write(HttpServletResponse res, String contentType, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    res.setContentType(contentType);
    res.setHeader("Cache-Control", "no-store");
    res.setContentLength(bytes.length);
    res.getOutputStream().write(bytes);
  }

  private static final class StatusServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final transient Supplier<String> json;

    StatusServlet(Supplier<String> json) {
      this.json = json;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
      write(res, "application/json", json.get());
    }
  }

  private static final class DashboardServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final transient Supplier<String> json;
    private transient volatile String html; // read from the jar once, on the first GET

    DashboardServlet(Supplier<String> json) {
      this.json = json;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
      String rest = req.getPathInfo();
      if (rest == null || "/".equals(rest)) {
        String page = html;
        if (page == null) {
          page = DashboardPage.html();
          html = page;
        }
        write(res, DashboardPage.CONTENT_TYPE, page);
      } else if ("/data".equals(rest)) {
        write(res, "application/json", json.get());
      } else {
        res.sendError(HttpServletResponse.SC_NOT_FOUND);
      }
    }
  }
}
