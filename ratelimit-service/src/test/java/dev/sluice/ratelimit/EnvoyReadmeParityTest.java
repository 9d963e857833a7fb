package dev.sluice.ratelimit;

import static dev.sluice.ratelimit.RlsFixture.descriptor;
import static dev.sluice.ratelimit.RlsFixture.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Drop-in parity with envoy/ratelimit: the example configurations of its README ("Examples 1 to
 * 11"), each read as it is written there (where the README gives two configurations of one domain,
 * the second gets a domain of its own), and the answers the README documents for them, over a real
 * port on a virtual clock that starts at midnight UTC.
 */
class EnvoyReadmeParityTest {

  /** One descriptor's expected status; {@code limit < 0}: no limit applies. */
  record Expect(Code code, long limit, RateLimitResponse.RateLimit.Unit unit, long remaining) {
    static Expect ok(long limit, RateLimitResponse.RateLimit.Unit unit, long remaining) {
      return new Expect(Code.OK, limit, unit, remaining);
    }

    static Expect over(long limit, RateLimitResponse.RateLimit.Unit unit) {
      return new Expect(Code.OVER_LIMIT, limit, unit, 0);
    }

    static Expect noLimit() {
      return new Expect(Code.OK, -1, null, 0);
    }
  }

  /** Sends {@code request} {@code times} times after advancing the clock; checks the last answer. */
  record Step(
      String what,
      Duration advance,
      RateLimitRequest request,
      int times,
      Code overall,
      List<Expect> statuses) {}

  record Example(String name, String yaml, List<Step> steps) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static final RateLimitResponse.RateLimit.Unit SECOND =
      RateLimitResponse.RateLimit.Unit.SECOND;
  private static final RateLimitResponse.RateLimit.Unit MINUTE =
      RateLimitResponse.RateLimit.Unit.MINUTE;
  private static final RateLimitResponse.RateLimit.Unit HOUR =
      RateLimitResponse.RateLimit.Unit.HOUR;
  private static final RateLimitResponse.RateLimit.Unit DAY = RateLimitResponse.RateLimit.Unit.DAY;

  private static Step step(
      String what, RateLimitRequest request, int times, Code overall, Expect... s) {
    return new Step(what, Duration.ZERO, request, times, overall, List.of(s));
  }

  private static Step after(
      Duration advance,
      String what,
      RateLimitRequest request,
      int times,
      Code overall,
      Expect... s) {
    return new Step(what, advance, request, times, overall, List.of(s));
  }

  static Stream<Example> examples() {
    List<Example> all = new ArrayList<>();
    all.add(new Example(
        "Example 1: two values of one key, 500 a second each",
        """
        domain: mongo_cps
        descriptors:
          - key: database
            value: users
            rate_limit:
              unit: second
              requests_per_unit: 500

          - key: database
            value: default
            rate_limit:
              unit: second
              requests_per_unit: 500
        """,
        List.of(
            step(
                "500 for users pass",
                request("mongo_cps", descriptor("database", "users")),
                500,
                Code.OK,
                Expect.ok(500, SECOND, 0)),
            step(
                "the 501st is over",
                request("mongo_cps", descriptor("database", "users")),
                1,
                Code.OVER_LIMIT,
                Expect.over(500, SECOND)),
            step(
                "default counts apart",
                request("mongo_cps", descriptor("database", "default")),
                1,
                Code.OK,
                Expect.ok(500, SECOND, 499)),
            step(
                "a value not configured has no limit",
                request("mongo_cps", descriptor("database", "orders")),
                1,
                Code.OK,
                Expect.noLimit()),
            after(
                Duration.ofSeconds(1),
                "the next second starts afresh",
                request("mongo_cps", descriptor("database", "users")),
                1,
                Code.OK,
                Expect.ok(500, SECOND, 499)))));
    all.add(new Example(
        "Example 2: nested descriptors and two descriptors in one request",
        """
        domain: messaging
        descriptors:
          # Only allow 5 marketing messages a day
          - key: message_type
            value: marketing
            descriptors:
              - key: to_number
                rate_limit:
                  unit: day
                  requests_per_unit: 5

          # Only allow 100 messages a day to any unique phone number
          - key: to_number
            rate_limit:
              unit: day
              requests_per_unit: 100
        """,
        List.of(
            step(
                "5 marketing messages to one number pass",
                request(
                    "messaging",
                    descriptor("message_type", "marketing", "to_number", "2061111111"),
                    descriptor("to_number", "2061111111")),
                5,
                Code.OK,
                Expect.ok(5, DAY, 0),
                Expect.ok(100, DAY, 95)),
            step(
                "the 6th is over: a logical OR of the descriptors",
                request(
                    "messaging",
                    descriptor("message_type", "marketing", "to_number", "2061111111"),
                    descriptor("to_number", "2061111111")),
                1,
                Code.OVER_LIMIT,
                Expect.over(5, DAY),
                Expect.ok(100, DAY, 94)),
            step(
                "another number gets its own 5",
                request(
                    "messaging",
                    descriptor("message_type", "marketing", "to_number", "2062222222")),
                1,
                Code.OK,
                Expect.ok(5, DAY, 4)))));
    all.add(new Example(
        "Example 3: key and value are matched before the key alone",
        """
        domain: edge_proxy_per_ip
        descriptors:
          - key: remote_address
            rate_limit:
              unit: second
              requests_per_unit: 10

          # Black list IP
          - key: remote_address
            value: 50.0.0.5
            rate_limit:
              unit: second
              requests_per_unit: 0
        """,
        List.of(
            step(
                "the black-listed address is over at once",
                request("edge_proxy_per_ip", descriptor("remote_address", "50.0.0.5")),
                1,
                Code.OVER_LIMIT,
                Expect.over(0, SECOND)),
            step(
                "any other address gets 10 a second",
                request("edge_proxy_per_ip", descriptor("remote_address", "50.0.0.1")),
                10,
                Code.OK,
                Expect.ok(10, SECOND, 0)),
            step(
                "the 11th is over",
                request("edge_proxy_per_ip", descriptor("remote_address", "50.0.0.1")),
                1,
                Code.OVER_LIMIT,
                Expect.over(10, SECOND)),
            step(
                "each address counts apart",
                request("edge_proxy_per_ip", descriptor("remote_address", "50.0.0.2")),
                1,
                Code.OK,
                Expect.ok(10, SECOND, 9)))));
    all.add(new Example(
        "Example 4: a request matches only a configuration of its own depth",
        """
        domain: example4
        descriptors:
          - key: key
            value: value
            rate_limit:
              requests_per_unit: 300
              unit: second
        """,
        List.of(step(
            "two tuples do not match a one-level limit",
            request("example4", descriptor("key", "value", "subkey", "subvalue")),
            1,
            Code.OK,
            Expect.noLimit()))));
    all.add(new Example(
        "Example 4, second configuration: the nested level matches",
        """
        domain: example4_nested
        descriptors:
          - key: key
            value: value
            descriptors:
              - key: subkey
                rate_limit:
                  requests_per_unit: 300
                  unit: second
        """,
        List.of(
            step(
                "two tuples match the nested limit",
                request("example4_nested", descriptor("key", "value", "subkey", "subvalue")),
                1,
                Code.OK,
                Expect.ok(300, SECOND, 299)),
            step(
                "one tuple reaches no limit",
                request("example4_nested", descriptor("key", "value")),
                1,
                Code.OK,
                Expect.noLimit()))));
    all.add(new Example(
        "Example 5: unlimited is OK with LimitRemaining MaxUint32",
        """
        domain: internal
        descriptors:
          - key: ldap
            rate_limit:
              unlimited: true

          - key: azure
            rate_limit:
              unit: minute
              requests_per_unit: 100
        """,
        List.of(step(
            "ldap is unlimited, azure counted",
            request("internal", descriptor("ldap", "cn=x"), descriptor("azure", "vm")),
            1000,
            Code.OVER_LIMIT,
            new Expect(Code.OK, -1, null, 0xFFFF_FFFFL),
            Expect.over(100, MINUTE)))));
    all.add(new Example(
        "Example 6: shadow_mode answers OK over the limit",
        """
        domain: example6
        descriptors:
          - key: service
            descriptors:
              - key: user
                value: user-a
                rate_limit:
                  requests_per_unit: 10
                  unit: second
                shadow_mode: true
              - key: user
                value: user-b
                rate_limit:
                  requests_per_unit: 20
                  unit: second
        """,
        List.of(
            step(
                "user-a is never limited",
                request("example6", descriptor("service", "auth-service", "user", "user-a")),
                30,
                Code.OK,
                Expect.ok(10, SECOND, 0)),
            step(
                "user-b gets 20",
                request("example6", descriptor("service", "auth-service", "user", "user-b")),
                20,
                Code.OK,
                Expect.ok(20, SECOND, 0)),
            step(
                "user-b's 21st is over",
                request("example6", descriptor("service", "auth-service", "user", "user-b")),
                1,
                Code.OVER_LIMIT,
                Expect.over(20, SECOND)))));
    all.add(new Example(
        "Example 7: replaces drops the replaced limit without counting it",
        """
        domain: example7
        descriptors:
          - key: key_1
            value: value_1
            descriptors:
              - key: user
                value: bkthomps
                rate_limit:
                  name: specific_limit
                  requests_per_unit: 5
                  unit: second
          - key: key_2
            value: value_2
            descriptors:
              - key: user
                value: bkthomps
                rate_limit:
                  replaces:
                    - name: specific_limit
                  requests_per_unit: 10
                  unit: second
        """,
        List.of(
            step(
                "both apply: 10 a second, the 5 replaced",
                request(
                    "example7",
                    descriptor("key_1", "value_1", "user", "bkthomps"),
                    descriptor("key_2", "value_2", "user", "bkthomps")),
                10,
                Code.OK,
                Expect.noLimit(),
                Expect.ok(10, SECOND, 0)),
            step(
                "the 11th is over",
                request(
                    "example7",
                    descriptor("key_1", "value_1", "user", "bkthomps"),
                    descriptor("key_2", "value_2", "user", "bkthomps")),
                1,
                Code.OVER_LIMIT,
                Expect.noLimit(),
                Expect.over(10, SECOND)),
            step(
                "the replaced limit was not changed: its 5 are all there",
                request("example7", descriptor("key_1", "value_1", "user", "bkthomps")),
                5,
                Code.OK,
                Expect.ok(5, SECOND, 0)))));
    all.add(new Example(
        "Example 8: a key without value counts per value; detailed_metric is accepted",
        """
        domain: example8
        descriptors:
          - key: key1
            detailed_metric: true
            rate_limit:
              unit: minute
              requests_per_unit: 10
          - key: key1
            value: value1
            rate_limit:
              unit: minute
              requests_per_unit: 20
        """,
        List.of(
            step(
                "unspecified_value gets 10",
                request("example8", descriptor("key1", "unspecified_value")),
                10,
                Code.OK,
                Expect.ok(10, MINUTE, 0)),
            step(
                "unspecified_value2 counts apart",
                request("example8", descriptor("key1", "unspecified_value2")),
                1,
                Code.OK,
                Expect.ok(10, MINUTE, 9)),
            step(
                "value1 gets 20",
                request("example8", descriptor("key1", "value1")),
                20,
                Code.OK,
                Expect.ok(20, MINUTE, 0)))));
    all.add(new Example(
        "Example 9: a trailing wildcard",
        """
        domain: example9
        descriptors:
          - key: key1
            value: value*
            rate_limit:
              unit: minute
              requests_per_unit: 20
        """,
        List.of(
            step(
                "value1 matches",
                request("example9", descriptor("key1", "value1")),
                1,
                Code.OK,
                Expect.ok(20, MINUTE, 19)),
            step(
                "valueXYZ matches and counts apart",
                request("example9", descriptor("key1", "valueXYZ")),
                1,
                Code.OK,
                Expect.ok(20, MINUTE, 19)),
            step(
                "other does not match",
                request("example9", descriptor("key1", "other")),
                1,
                Code.OK,
                Expect.noLimit()))));
    all.add(new Example(
        "Example 9: a middle wildcard",
        """
        domain: example9_middle
        descriptors:
          - key: path
            value: /api/*/action
            rate_limit:
              unit: minute
              requests_per_unit: 20
        """,
        List.of(
            step(
                "/api/123/action matches",
                request("example9_middle", descriptor("path", "/api/123/action")),
                1,
                Code.OK,
                Expect.ok(20, MINUTE, 19)),
            step(
                "/api/user-id/action matches",
                request("example9_middle", descriptor("path", "/api/user-id/action")),
                1,
                Code.OK,
                Expect.ok(20, MINUTE, 19)),
            step(
                "/api/123/other does not",
                request("example9_middle", descriptor("path", "/api/123/other")),
                1,
                Code.OK,
                Expect.noLimit()))));
    all.add(new Example(
        "Example 9: several wildcards",
        """
        domain: example9_multiple
        descriptors:
          - key: route
            value: /api/*/resource/*/action
            rate_limit:
              unit: minute
              requests_per_unit: 20
        """,
        List.of(
            step(
                "/api/v1/resource/123/action matches",
                request("example9_multiple", descriptor("route", "/api/v1/resource/123/action")),
                1,
                Code.OK,
                Expect.ok(20, MINUTE, 19)),
            step(
                "/api/v1/resource/123/other does not",
                request("example9_multiple", descriptor("route", "/api/v1/resource/123/other")),
                1,
                Code.OK,
                Expect.noLimit()))));
    all.add(new Example(
        "Example 10: value_to_metric is accepted; counting per subject",
        """
        domain: example10
        descriptors:
          - key: route
            value_to_metric: true
            descriptors:
              - key: http_method
                value_to_metric: true
                descriptors:
                  - key: subject_id
                    rate_limit:
                      unit: minute
                      requests_per_unit: 60
        """,
        List.of(step(
            "three levels reach the limit",
            request(
                "example10", descriptor("route", "api", "http_method", "GET", "subject_id", "123")),
            60,
            Code.OK,
            Expect.ok(60, MINUTE, 0)))));
    all.add(new Example(
        "Example 11: share_threshold shares one counter among a wildcard's values",
        """
        domain: example11
        descriptors:
          # With share_threshold: true, all files/* matches share the same threshold
          - key: files
            value: files/*
            share_threshold: true
            rate_limit:
              unit: hour
              requests_per_unit: 10

          # Without share_threshold, each files_no_share/* match has its own isolated threshold
          - key: files_no_share
            value: files_no_share/*
            share_threshold: false
            rate_limit:
              unit: hour
              requests_per_unit: 10
        """,
        List.of(
            step(
                "5 for files/a.pdf",
                request("example11", descriptor("files", "files/a.pdf")),
                5,
                Code.OK,
                Expect.ok(10, HOUR, 5)),
            step(
                "5 for files/b.csv share the threshold",
                request("example11", descriptor("files", "files/b.csv")),
                5,
                Code.OK,
                Expect.ok(10, HOUR, 0)),
            step(
                "files/c.txt is over",
                request("example11", descriptor("files", "files/c.txt")),
                1,
                Code.OVER_LIMIT,
                Expect.over(10, HOUR)),
            step(
                "10 for files_no_share/a.pdf",
                request("example11", descriptor("files_no_share", "files_no_share/a.pdf")),
                10,
                Code.OK,
                Expect.ok(10, HOUR, 0)),
            step(
                "files_no_share/b.csv has its own 10",
                request("example11", descriptor("files_no_share", "files_no_share/b.csv")),
                1,
                Code.OK,
                Expect.ok(10, HOUR, 9)))));
    return all.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("examples")
  void answersAsTheReadmeDocuments(Example example) throws Exception {
    try (RlsFixture rls = new RlsFixture(example.yaml(), RlsFixture.MIDNIGHT)) {
      for (Step step : example.steps()) {
        rls.time.advance(step.advance());
        RateLimitResponse answer = rls.ask(step.request(), step.times());
        assertThat(answer.getOverallCode()).as(step.what()).isEqualTo(step.overall());
        assertThat(answer.getStatusesCount())
            .as(step.what())
            .isEqualTo(step.statuses().size());
        for (int i = 0; i < step.statuses().size(); i++) {
          Expect expect = step.statuses().get(i);
          DescriptorStatus status = answer.getStatuses(i);
          String what = step.what() + ", descriptor " + i;
          assertThat(status.getCode()).as(what).isEqualTo(expect.code());
          assertThat(Integer.toUnsignedLong(status.getLimitRemaining()))
              .as(what)
              .isEqualTo(expect.remaining());
          if (expect.limit() < 0) {
            assertThat(status.hasCurrentLimit()).as(what).isFalse();
          } else {
            assertThat(Integer.toUnsignedLong(status.getCurrentLimit().getRequestsPerUnit()))
                .as(what)
                .isEqualTo(expect.limit());
            assertThat(status.getCurrentLimit().getUnit()).as(what).isEqualTo(expect.unit());
          }
        }
      }
    }
  }
}
