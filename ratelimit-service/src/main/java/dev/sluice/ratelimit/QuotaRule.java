package dev.sluice.ratelimit;

import java.util.Map;

/**
 * One {@code sluice.ratelimit-service.quota.buckets.<name>.*} rule: the buckets whose {@code
 * bucket_id} carries every entry of {@code match} get {@code rate}.
 *
 * @param name the rule's name in its keys
 * @param match entries a bucket id must carry (it may carry more); never empty
 * @param rate the quota of each bucket the rule covers
 */
record QuotaRule(String name, Map<String, String> match, QuotaRate rate) {

  QuotaRule {
    match = Map.copyOf(match);
  }

  boolean covers(Map<String, String> bucketId) {
    for (Map.Entry<String, String> e : match.entrySet()) {
      if (!e.getValue().equals(bucketId.get(e.getKey()))) {
        return false;
      }
    }
    return true;
  }
}
