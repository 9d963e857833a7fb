package dev.sluice.servlet;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/** The application behind the servlet doors: the same routes as the Javalin door's. */
final class TestApp extends HttpServlet {

  private static final long serialVersionUID = 1L;

  private final transient Supplier<String> work;

  TestApp(Supplier<String> work) {
    this.work = work;
  }

  @Override
  protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
    String path = req.getRequestURI();
    String body;
    if (path.equals("/api/work")) {
      body = work.get();
    } else if (path.startsWith("/api/history/")) {
      body = "history " + path.substring("/api/history/".length());
    } else if (path.equals("/health")) {
      body = "up";
    } else {
      res.sendError(404);
      return;
    }
    res.setContentType("text/plain");
    res.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
  }
}
