package dev.sluice.demo;

/** A request parameter the service cannot use; answered 400 with problem+json naming it. */
final class BadRequest extends RuntimeException {

  private static final long serialVersionUID = 1L;

  final String parameter;
  final String value;

  BadRequest(String parameter, String value, String rule) {
    super(parameter + " " + rule + " but was '" + value + "'", null, false, false);
    this.parameter = parameter;
    this.value = value;
  }
}
