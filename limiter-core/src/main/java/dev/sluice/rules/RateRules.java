package dev.sluice.rules;

import dev.sluice.rate.RateDecision;
import dev.sluice.rate.RateLimiter;
import dev.sluice.rate.RateOutcome;
import dev.sluice.request.Actor;
import dev.sluice.request.RequestInfo;
import dev.sluice.request.Scope;
import dev.sluice.store.RateRequest;
import dev.sluice.store.RateStore;
import dev.sluice.time.NanoClock;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * The rule engine: evaluates a request against the current {@link RuleSet}.
 *
 * <p>A request must pass every rule that guards it and counts the actor it names. Local rules are
 * decided first, broadest first, and evaluation stops at the first enforced rejection; global rules
 * then go to the shared store in one round trip. A request that is rejected keeps no permit of any
 * rule: the permits that other rules (shadow ones included) already granted are given back. This is
 * the over-count of envoyproxy/ratelimit#1060, where a request over one limit still used up the
 * others, that Sluice must not have.
 *
 * <p>When every rule a request matches is local, {@link #check} answers an already completed stage,
 * so callers can take the answer without going asynchronous.
 */
public final class RateRules {

  /** Default bound on the keys (actors) each local rule remembers. */
  public static final long DEFAULT_MAX_KEYS_PER_RULE = RateLimiter.DEFAULT_MAX_KEYS;

  private final NanoClock clock;
  private final long maxKeysPerRule;
  private final RateStore store;
  private final Map<String, Function<RequestInfo, Optional<String>>> customActors;
  private final RateListener listener;
  private final System.Logger log;
  private final AtomicBoolean toldGlobalRunsLocally = new AtomicBoolean();
  private final AtomicBoolean toldStoreBrokeContract = new AtomicBoolean();
  private final Object replaceLock = new Object();
  private volatile ActiveRules active = ActiveRules.empty();

  private RateRules(Builder builder) {
    this.clock = builder.clock;
    this.maxKeysPerRule = builder.maxKeysPerRule;
    this.store = builder.store;
    this.customActors = Map.copyOf(builder.customActors);
    this.listener = builder.listener;
    this.log = builder.log;
    replace(builder.rules);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The rules in force. */
  public RuleSet rules() {
    return active.rules;
  }

  /** How many keys (actors) each local rule holds at most ({@link Builder#maxKeysPerRule}). */
  public long maxKeysPerRule() {
    return maxKeysPerRule;
  }

  /**
   * How many keys (actors) the rule with this id holds on this node now, at most {@link
   * #maxKeysPerRule()}; empty when no rule in force has that id or the rule is counted in the shared
   * store. Walks the rule's map ({@link RateLimiter#trackedKeys()}): for a scrape, not per request.
   */
  public OptionalLong trackedKeys(String ruleId) {
    ActiveRules.Counted counted = active.byId.get(ruleId);
    return counted == null || counted.local == null
        ? OptionalLong.empty()
        : OptionalLong.of(counted.local.trackedKeys());
  }

  /** The shared store global rules use, if one is configured. */
  public Optional<RateStore> store() {
    return Optional.ofNullable(store);
  }

  /**
   * Puts new rules in force atomically. Rules whose id, actor, limit, algorithm and scope did not
   * change keep their counts; the others start afresh.
   *
   * @throws IllegalArgumentException when a rule names a custom actor that is not registered; the
   *     old rules stay in force
   */
  public void replace(RuleSet rules) {
    Objects.requireNonNull(rules, "rules");
    for (Rule rule : rules.rules()) {
      if (rule.actor() instanceof Actor.Custom custom && !customActors.containsKey(custom.name())) {
        throw new IllegalArgumentException("rule '" + rule.id() + "' uses actor '" + custom.id()
            + "' but no such custom actor is registered; registered: "
            + customActors.keySet().stream().sorted().toList());
      }
    }
    synchronized (replaceLock) { // two reloads at once must not both build from the same previous
      active = ActiveRules.of(rules, active, this::keyOf, this::counterOf);
    }
  }

  /**
   * Decides a request. The stage is already complete when every matching rule is local; it never
   * completes exceptionally. {@code request} is read before this returns, never by the stage, so a
   * caller may reuse it for another request afterwards.
   */
  public CompletionStage<RateVerdict> check(RequestInfo request) {
    ActiveRules rules = active;
    RuleOutcomes outcomes = new RuleOutcomes();
    if (rules.allLocal) {
      decideLocally(rules, request, outcomes);
      return CompletableFuture.completedFuture(outcomes.toVerdict());
    }
    int[] matches = rules.rules.match(request.method(), request.path());
    if (matches.length == 0) {
      return CompletableFuture.completedFuture(RateVerdict.noRules());
    }
    List<RateRequest> global = null;
    List<Rule> globalRules = null;
    for (int position : matches) {
      ActiveRules.Counted counted = rules.counted[position];
      String key = counted.key.apply(request);
      if (key == null) {
        continue; // the request does not carry what this rule counts by
      }
      if (counted.local == null) {
        if (global == null) {
          global = new ArrayList<>(matches.length);
          globalRules = new ArrayList<>(matches.length);
        }
        global.add(new RateRequest(
            counted.rule.id(), key, counted.rule.algorithm(), counted.rule.limit(), 1));
        globalRules.add(counted.rule);
        continue;
      }
      if (!decide(rules, counted, key, outcomes)) {
        return CompletableFuture.completedFuture(finish(outcomes).toVerdict());
      }
    }
    if (global == null) {
      return CompletableFuture.completedFuture(finish(outcomes).toVerdict());
    }
    List<RateRequest> requests = global;
    List<Rule> requestRules = globalRules;
    return store
        .tryAcquire(requests)
        .handle((answers, failure) -> decideGlobal(
                rules, outcomes, requests, requestRules, failure == null ? answers : null)
            .toVerdict());
  }

  /**
   * Whether some rule in force guards requests with this method and path. When none does, {@link
   * #check} and {@link #checkNow} answer {@link RateVerdict#noRules()}: a caller can skip building
   * the request's {@link RequestInfo} (no allocation: the lookup walks the path in place).
   */
  public boolean guards(String method, String path) {
    return active.rules.match(method, path).length > 0;
  }

  /**
   * Decides a request without a future when no rule in force is counted in the shared store (the
   * usual case): the verdict, exactly as {@link #check} would complete with. Null when some rule
   * needs the store; then nothing was counted, and {@link #check} decides.
   */
  public RateVerdict checkNow(RequestInfo request) {
    RuleOutcomes outcomes = new RuleOutcomes();
    return checkNow(request, outcomes) ? outcomes.toVerdict() : null;
  }

  /**
   * {@link #checkNow(RequestInfo)} without an object per decision: the answer is written into
   * {@code into}, a holder the caller reuses (one per thread), so a request decided by local rules
   * allocates nothing here. Answers false when some rule needs the shared store; then nothing was
   * counted, {@code into} holds no decision, and {@link #check} decides.
   */
  public boolean checkNow(RequestInfo request, RuleOutcomes into) {
    into.clear();
    ActiveRules rules = active;
    if (!rules.allLocal) {
      return false;
    }
    decideLocally(rules, request, into);
    return true;
  }

  private void decideLocally(ActiveRules rules, RequestInfo request, RuleOutcomes into) {
    int[] matches = rules.rules.match(request.method(), request.path());
    for (int position : matches) {
      ActiveRules.Counted counted = rules.counted[position];
      String key = counted.key.apply(request);
      // null: the request does not carry what this rule counts by
      if (key != null && !decide(rules, counted, key, into)) {
        break;
      }
    }
    finish(into);
  }

  /**
   * One local rule's decision, added to {@code into}; when it rejects, what the earlier rules granted
   * is given back and false is answered.
   */
  private static boolean decide(
      ActiveRules rules, ActiveRules.Counted counted, String key, RuleOutcomes into) {
    RateOutcome outcome = into.add(counted.rule, key);
    if (!counted.local.tryAcquire(key, 1, outcome) && !counted.rule.shadow()) {
      into.rejectedAt(into.size() - 1);
      refundLocal(rules, into);
      return false;
    }
    return true;
  }

  private RuleOutcomes decideGlobal(
      ActiveRules rules,
      RuleOutcomes outcomes,
      List<RateRequest> requests,
      List<Rule> requestRules,
      List<RateDecision> answers) {
    if (answers == null || answers.size() != requests.size()) {
      // the store promised to degrade on its own; if it broke that promise, the local rules alone
      // decide rather than failing the request
      if (toldStoreBrokeContract.compareAndSet(false, true)) {
        log.log(
            Level.WARNING,
            "shared store " + store.describe() + " failed a request instead"
                + " of degrading; global rules are skipped while it does");
      }
      return finish(outcomes);
    }
    List<RateRequest> granted = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      RateDecision answer = answers.get(i);
      outcomes.add(requestRules.get(i), requests.get(i).key()).set(answer);
      if (answer.allowed()) {
        granted.add(requests.get(i));
      } else if (outcomes.allowed() && !requestRules.get(i).shadow()) {
        outcomes.rejectedAt(outcomes.size() - 1);
      }
    }
    if (!outcomes.allowed()) {
      refundLocal(rules, outcomes);
      if (!granted.isEmpty()) {
        store.refund(granted); // best effort, not awaited: the store never fails it
      }
    }
    return finish(outcomes);
  }

  /** Gives back what the local rules granted to a request that was then rejected. */
  private static void refundLocal(ActiveRules rules, RuleOutcomes outcomes) {
    for (int i = 0; i < outcomes.size(); i++) {
      ActiveRules.Counted counted = rules.byId.get(outcomes.rule(i).id());
      if (outcomes.outcome(i).allowed() && counted != null && counted.local != null) {
        counted.local.refund(outcomes.actorKey(i), 1);
      }
    }
  }

  private RuleOutcomes finish(RuleOutcomes outcomes) {
    if (listener != null) {
      for (int i = 0; i < outcomes.size(); i++) {
        try {
          listener.onDecision(outcomes.rule(i), outcomes.outcome(i), outcomes.actorKey(i));
        } catch (RuntimeException ignored) {
          // metrics must never fail a request
        }
      }
    }
    return outcomes;
  }

  private Function<RequestInfo, String> keyOf(Rule rule) {
    Function<RequestInfo, String> extractor = Actor.keyOf(
        rule.actor(), rule.actor() instanceof Actor.Custom c ? customActors.get(c.name()) : null);
    if (!(rule.actor() instanceof Actor.Custom)) {
      return extractor;
    }
    AtomicBoolean told = new AtomicBoolean();
    return request -> {
      try {
        return extractor.apply(request);
      } catch (RuntimeException e) {
        // a custom extractor that chokes on odd input must not turn into a 500
        if (told.compareAndSet(false, true)) {
          log.log(
              Level.WARNING,
              "custom actor " + rule.actor().id() + " of rule '" + rule.id()
                  + "' threw; the rule does not apply to such requests",
              e);
        }
        return null;
      }
    };
  }

  private RateLimiter counterOf(Rule rule) {
    if (rule.scope() == Scope.GLOBAL) {
      if (store != null) {
        return null;
      }
      if (toldGlobalRunsLocally.compareAndSet(false, true)) {
        log.log(
            Level.INFO,
            "no shared store is configured: global rules (such as '" + rule.id()
                + "') are counted on this node only");
        if (listener != null) {
          try {
            listener.onGlobalRunsLocally(rule);
          } catch (RuntimeException ignored) {
            // metrics must never fail a reload
          }
        }
      }
    }
    try {
      RateLimiter.Builder limiter =
          RateLimiter.builder(rule.algorithm(), rule.limit()).clock(clock).maxKeys(maxKeysPerRule);
      // everyone shares one quota: no map lookup, no second clock read for idle expiry
      if (rule.actor() instanceof Actor.All) {
        limiter.unkeyed();
      }
      return limiter.build();
    } catch (IllegalArgumentException e) {
      // e.g. a limit the algorithm cannot represent: name the rule, keep the old rules in force
      throw new IllegalArgumentException("rule '" + rule.id() + "': " + e.getMessage(), e);
    }
  }

  /** Configures a {@link RateRules}. */
  public static final class Builder {
    private RuleSet rules = RuleSet.empty();
    private NanoClock clock = NanoClock.system();
    private long maxKeysPerRule = DEFAULT_MAX_KEYS_PER_RULE;
    private RateStore store;
    private final Map<String, Function<RequestInfo, Optional<String>>> customActors =
        new HashMap<>();
    private RateListener listener;
    private System.Logger log = System.getLogger(RateRules.class.getName());

    private Builder() {}

    /** The initial rules; empty by default. */
    public Builder rules(RuleSet rules) {
      this.rules = Objects.requireNonNull(rules, "rules");
      return this;
    }

    /** The clock of every local decision; {@link NanoClock#system()} by default. */
    public Builder clock(NanoClock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** How many actors each local rule remembers (least useful forgotten first); >= 1. */
    public Builder maxKeysPerRule(long maxKeys) {
      if (maxKeys < 1) {
        throw new IllegalArgumentException("maxKeysPerRule must be >= 1 but was " + maxKeys);
      }
      this.maxKeysPerRule = maxKeys;
      return this;
    }

    /** The shared store of global rules; without one, global rules are counted locally. */
    public Builder store(RateStore store) {
      this.store = store;
      return this;
    }

    /**
     * Registers a custom actor, used in rules as {@code custom:NAME}. The extractor answers the key
     * to count the request under, or empty when the rule should not apply to the request.
     */
    public Builder customActor(String name, Function<RequestInfo, Optional<String>> extractor) {
      Actor.Custom actor = new Actor.Custom(name);
      customActors.put(actor.name(), Objects.requireNonNull(extractor, "extractor"));
      return this;
    }

    /** Metrics callbacks. */
    public Builder listener(RateListener listener) {
      this.listener = listener;
      return this;
    }

    Builder logger(System.Logger log) {
      this.log = Objects.requireNonNull(log, "log");
      return this;
    }

    /**
     * Builds the engine.
     *
     * @throws IllegalArgumentException when a rule names an unregistered custom actor
     */
    public RateRules build() {
      return new RateRules(this);
    }
  }
}
