package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

class JsonWriterTest {

  @Test
  void writesNestedObjectsAndArraysWithCommasInTheRightPlaces() {
    String json = new JsonWriter()
        .beginObject()
        .member("a", 1)
        .name("b")
        .beginArray()
        .value("x")
        .value(2.5)
        .value(true)
        .nullValue()
        .beginObject()
        .endObject()
        .beginArray()
        .endArray()
        .endArray()
        .member("c", false)
        .endObject()
        .toString();

    assertThat(json).isEqualTo("{\"a\":1,\"b\":[\"x\",2.5,true,null,{},[]],\"c\":false}");
  }

  @Test
  void escapesQuotesBackslashesAndControlCharacters() {
    String json = new JsonWriter()
        .beginObject()
        .member("k\"ey", "a\"b\\c\n\t\u0001\u2028</script>")
        .endObject()
        .toString();

    assertThat(json).isEqualTo("{\"k\\\"ey\":\"a\\\"b\\\\c\\n\\t\\u0001\\u2028</script>\"}");
  }

  @Test
  void nanAndInfinityBecomeNull() {
    assertThat(new JsonWriter()
            .beginArray()
            .value(Double.NaN)
            .value(Double.POSITIVE_INFINITY)
            .value(3.0)
            .endArray()
            .toString())
        .isEqualTo("[null,null,3]");
  }

  @Test
  void unbalancedContainersAreAnError() {
    assertThatThrownBy(() -> new JsonWriter().beginObject().toString())
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> new JsonWriter().endArray()).isInstanceOf(IllegalStateException.class);
  }

  @Tag("property")
  @Test
  void anyStringRoundTripsThroughAJsonParser() throws Exception {
    long seed = dev.sluice.testing.Seeds.seed();
    Random random = new Random(seed);
    ObjectMapper mapper = new ObjectMapper();
    for (int i = 0; i < 2_000; i++) {
      StringBuilder sb = new StringBuilder();
      int length = random.nextInt(20);
      for (int j = 0; j < length; j++) {
        sb.append((char) (random.nextBoolean() ? random.nextInt(0x80) : random.nextInt(0xD800)));
      }
      String text = sb.toString();
      JsonNode parsed = mapper.readTree(
          new JsonWriter().beginObject().member(text, text).endObject().toString());
      assertThat(parsed.get(text).asText()).as("seed %d, string %s", seed, text).isEqualTo(text);
    }
  }
}
