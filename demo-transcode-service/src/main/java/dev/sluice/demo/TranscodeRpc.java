package dev.sluice.demo;

import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The gRPC door's one method, declared by hand (no generated code): {@code
 * transcode.Transcoder/Transcode}, unary, whose messages are the JSON of the HTTP endpoint in UTF-8:
 * the request {@code {"cpuMillis": 200, "waitMillis": 0}} (the query parameters of {@code POST
 * /api/transcode}), the answer the {@link JobResult} that endpoint answers.
 */
final class TranscodeRpc {

  static final String SERVICE = "transcode.Transcoder";

  /** UTF-8 text on the wire, the message as it is. */
  static final MethodDescriptor.Marshaller<String> JSON = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(String value) {
      return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream stream) {
      try {
        return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };

  static final MethodDescriptor<String, String> TRANSCODE =
      MethodDescriptor.<String, String>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "Transcode"))
          .setRequestMarshaller(JSON)
          .setResponseMarshaller(JSON)
          .build();

  private TranscodeRpc() {}
}
