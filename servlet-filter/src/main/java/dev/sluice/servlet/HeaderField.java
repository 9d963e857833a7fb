package dev.sluice.servlet;

import dev.sluice.http.RateHeaders;
import jakarta.servlet.http.HttpServletResponse;

/** A header field the rate headers keep and add to many answers. */
record HeaderField(String name, String value) {

  /** The rate headers' fields on a servlet response: by name and value. */
  static final RateHeaders.Fields<HttpServletResponse, HeaderField> ON_SERVLET =
      new RateHeaders.Fields<>() {
        @Override
        public HeaderField field(String name, String value) {
          return new HeaderField(name, value);
        }

        @Override
        public void add(HttpServletResponse res, HeaderField field) {
          res.addHeader(field.name, field.value);
        }

        @Override
        public void add(HttpServletResponse res, String name, String value) {
          res.addHeader(name, value);
        }
      };
}
