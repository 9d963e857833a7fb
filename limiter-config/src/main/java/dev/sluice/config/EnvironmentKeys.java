package dev.sluice.config;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Which key each environment variable sets, for {@link SluiceProperties}. */
final class EnvironmentKeys {

  private EnvironmentKeys() {}

  /**
   * The keys the environment sets and their values (trimmed): {@code SLUICE_*} variables (see
   * {@link #sluice}); for an application key a lower layer names, its upper-case form ({@code
   * server.port} by {@code SERVER_PORT}); and the aliases ({@code PORT} for {@code server.port}),
   * which win.
   *
   * @param lowerKeys the keys of the layers below the environment (defaults, file)
   * @param varOfKey filled with the variable that set each key, for the sources
   */
  static Map<String, String> map(
      Map<String, String> env,
      Set<String> lowerKeys,
      Map<String, String> aliases,
      Map<String, String> varOfKey) {
    Map<String, String> out = sluice(env, lowerKeys, varOfKey);
    for (String key : List.copyOf(lowerKeys)) {
      String var = envForm(key);
      if (!key.startsWith(SluiceProperties.PREFIX) && env.get(var) != null) {
        out.put(key, env.get(var).trim());
        varOfKey.put(key, var);
      }
    }
    aliases.forEach((var, key) -> {
      if (env.get(var) != null) {
        out.put(key, env.get(var).trim());
        varOfKey.put(key, var);
      }
    });
    return out;
  }

  /**
   * Maps {@code SLUICE_*} variables to keys. Upper-case with underscores loses the difference
   * between '.', '-' and '_', so static keys are matched by their env form, and a limiter's name is
   * matched against the names the defaults and the file use before falling back to lower case.
   */
  private static Map<String, String> sluice(
      Map<String, String> env, Set<String> fileKeys, Map<String, String> varOfKey) {
    Map<String, String> out = new LinkedHashMap<>();
    Map<String, String> knownLimiterNames = new LinkedHashMap<>();
    for (String key : fileKeys) {
      SluiceProperties.limiterKey(key).ifPresent(p -> knownLimiterNames.put(envForm(p[0]), p[0]));
    }
    // a sluice.* key of an application's own (sluice.ratelimit-service.port) that the defaults or
    // the file name: set by its env form, as the plugin's static keys are
    Map<String, String> lowerByEnvForm = new LinkedHashMap<>();
    for (String key : fileKeys) {
      if (key.startsWith(SluiceProperties.PREFIX)) {
        lowerByEnvForm.putIfAbsent(envForm(key), key);
      }
    }
    for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
      String var = e.getKey();
      if (!var.startsWith("SLUICE_")) {
        continue;
      }
      String value = e.getValue() == null ? "" : e.getValue().trim();
      String key = SluiceKeys.byEnvForm(var);
      if (key == null) {
        key = limiterKeyFromEnv(var, knownLimiterNames);
      }
      if (key == null) {
        key = lowerByEnvForm.get(var);
      }
      if (key == null) {
        // an unrecognized SLUICE_ variable keeps a best-guess key so that the unknown-key check
        // names it and finds the nearest known key
        key = guessKey(var, knownLimiterNames);
      }
      out.put(key, value);
      varOfKey.put(key, var);
    }
    return out;
  }

  private static String limiterKeyFromEnv(String var, Map<String, String> knownNames) {
    String prefix = envForm(SluiceProperties.LIMITERS);
    if (!var.startsWith(prefix)) {
      return null;
    }
    String rest = var.substring(prefix.length());
    for (String suffix : SluiceProperties.LIMITER_SUFFIXES) {
      String envSuffix = "_" + envForm(suffix);
      if (rest.endsWith(envSuffix) && rest.length() > envSuffix.length()) {
        String envName = rest.substring(0, rest.length() - envSuffix.length());
        String name =
            knownNames.getOrDefault(envName, envName.toLowerCase(Locale.ROOT).replace('_', '-'));
        return SluiceProperties.LIMITERS + name + "." + suffix;
      }
    }
    return null;
  }

  /**
   * A key for a variable no known key matches: under {@code SLUICE_LIMITERS_} the name is a name
   * the defaults or the file use (or the first word) and the rest is the misspelt limiter key, so that
   * {@code SLUICE_LIMITERS_WORK_MAX_CONCURENCY} reads {@code sluice.limiters.work.max-concurency}.
   */
  private static String guessKey(String var, Map<String, String> knownNames) {
    String prefix = envForm(SluiceProperties.LIMITERS);
    if (var.startsWith(prefix) && var.length() > prefix.length()) {
      String rest = var.substring(prefix.length());
      String envName = knownNames.keySet().stream()
          .filter(n -> rest.startsWith(n + "_") && rest.length() > n.length() + 1)
          .max(Comparator.comparingInt(String::length))
          .orElse(rest.contains("_") ? rest.substring(0, rest.indexOf('_')) : rest);
      String name =
          knownNames.getOrDefault(envName, envName.toLowerCase(Locale.ROOT).replace('_', '-'));
      String suffix = rest.length() > envName.length() + 1
          ? rest.substring(envName.length() + 1).toLowerCase(Locale.ROOT).replace('_', '-')
          : "";
      return SluiceProperties.LIMITERS + name + "." + suffix;
    }
    return var.toLowerCase(Locale.ROOT).replace('_', '.');
  }

  /** {@code sluice.limiters.transcode.max-queue} -> {@code SLUICE_LIMITERS_TRANSCODE_MAX_QUEUE}. */
  static String envForm(String key) {
    StringBuilder sb = new StringBuilder(key.length());
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      sb.append(Character.isLetterOrDigit(c) ? Character.toUpperCase(c) : '_');
    }
    return sb.toString();
  }
}
