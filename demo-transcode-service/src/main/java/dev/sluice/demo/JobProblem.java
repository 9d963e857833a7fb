package dev.sluice.demo;

/**
 * Why a job of the {@code ffmpeg} engine cannot be done, answered with its status as problem+json
 * naming the problem ({@code "problem":"not-a-video"}), so a client can tell bad footage (4xx,
 * do not retry) from a service that is stopping (503, retry elsewhere).
 */
final class JobProblem extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Not an HTTP status of the RFCs: nginx's "client closed request", as the plugin answers a client gone from the queue. */
  static final int CLIENT_GONE = 499;

  final int status;
  final String problem;

  JobProblem(int status, String problem, String detail) {
    super(detail, null, false, false);
    this.status = status;
    this.problem = problem;
  }

  static JobProblem notAVideo(String detail) {
    return new JobProblem(422, "not-a-video", detail);
  }

  static JobProblem truncated(String detail) {
    return new JobProblem(422, "truncated", detail);
  }

  static JobProblem tooLong(String detail) {
    return new JobProblem(422, "too-long", detail);
  }

  static JobProblem tooLarge(String detail) {
    return new JobProblem(413, "too-large", detail);
  }

  static JobProblem wrongType(String detail) {
    return new JobProblem(415, "not-mp4", detail);
  }

  static JobProblem noFootage() {
    return new JobProblem(400, "no-footage", "the request body must be the footage (video/mp4)");
  }

  static JobProblem clientGone() {
    return new JobProblem(CLIENT_GONE, "client-gone", "the client closed the connection");
  }

  static JobProblem stopping() {
    return new JobProblem(503, "shutting-down", "the service is stopping; the transcode was ended");
  }

  static JobProblem timedOut(String detail) {
    return new JobProblem(503, "timed-out", detail);
  }

  String title() {
    return switch (status) {
      case 400 -> "Bad Request";
      case 413 -> "Content Too Large";
      case 415 -> "Unsupported Media Type";
      case 422 -> "Unprocessable Content";
      case 503 -> "Service Unavailable";
      default -> "Client Closed Request";
    };
  }
}
