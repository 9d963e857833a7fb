package dev.sluice.javalin;

import dev.sluice.http.AdmissionFlow;
import dev.sluice.http.Deadline;
import dev.sluice.http.Passage;
import dev.sluice.request.RequestInfo;
import dev.sluice.time.NanoClock;
import io.javalin.http.Context;

/**
 * What the {@link AdmissionFlow} asks of a Javalin request: whether its path is bypassed, who it is
 * (a {@link ContextRequestInfo}), what is left of its own deadline and what it costs, and where a
 * rule failure goes (logged, at most so often).
 *
 * <p>A decision made on the spot on a platform thread takes the thread's {@link Turn}: its passage
 * and its request info, which the flow reads only while it decides (a decision never starts another
 * on its thread: grants and refusals of waiters are dispatched to the executor), so a thread's
 * requests share them and the common request allocates nothing for its decision.
 */
final class ContextRequests implements AdmissionFlow.Door<Context, LimiterEntry> {

  private final Settings settings;
  private final SluiceMeterBinder metrics;
  private final WarnOnce ruleFailures;
  private final NanoClock clock; // request deadlines
  private final PeerAddresses peers = new PeerAddresses();
  private final ThreadLocal<Turn> turns;

  ContextRequests(
      Settings settings, SluiceMeterBinder metrics, WarnOnce ruleFailures, NanoClock clock) {
    this.settings = settings;
    this.metrics = metrics;
    this.ruleFailures = ruleFailures;
    this.clock = clock;
    this.turns = ThreadLocal.withInitial(
        () -> new Turn(new ContextRequestInfo(null, null, settings, peers)));
  }

  /**
   * This platform thread's turn, now deciding {@code ctx}: {@link Turn#end()} once the flow
   * returns. Null on a virtual thread, which serves one request and ends: a passage of its own
   * costs less than a thread-local map.
   */
  Turn turn(Context ctx) {
    if (VirtualThreads.isVirtual(Thread.currentThread())) {
      return null;
    }
    Turn turn = turns.get();
    turn.deciding = ctx;
    return turn;
  }

  @Override
  public boolean bypassed(String path) {
    return settings.bypassed(path);
  }

  /**
   * The thread's own request info while it decides {@code ctx} on the spot; else (a virtual
   * thread, a request that goes on later) one of the request's own.
   */
  @Override
  public RequestInfo info(Context ctx, String path) {
    if (!VirtualThreads.isVirtual(Thread.currentThread())) {
      Turn turn = turns.get();
      if (turn.deciding == ctx) {
        return turn.info.of(ctx, path);
      }
    }
    return new ContextRequestInfo(ctx, path, settings, peers);
  }

  /**
   * The request's own budget from the limiter's {@code deadline-header}, in nanoseconds: none when
   * the limiter reads none or the request sends none (or a malformed one, counted); 0 when it is
   * spent. Remembers the deadline for {@link SluicePlugin#remainingBudget}.
   */
  @Override
  public long budgetNanos(Context ctx, LimiterEntry limiter) {
    String header = limiter.deadlineHeader();
    if (header == null) {
      return AdmissionFlow.NO_DEADLINE;
    }
    String raw = ctx.header(header);
    if (raw == null) {
      return AdmissionFlow.NO_DEADLINE;
    }
    long budget = Deadline.parseNanos(raw);
    if (budget == Deadline.MALFORMED) {
      metrics.onMalformedDeadline(limiter.name());
      return AdmissionFlow.NO_DEADLINE;
    }
    if (budget > 0) {
      ctx.attribute(Gate.DEADLINE, clock.nanoTime() + Math.min(budget, Long.MAX_VALUE / 4));
    }
    return budget;
  }

  @Override
  public void rulesFailed(RuntimeException failure) {
    // fail open: a broken rule or store must not turn every request into a 500
    ruleFailures.warn("rate rules failed; request let through", failure);
  }

  @Override
  public boolean costsOne(LimiterEntry limiter) {
    return limiter.cost().one();
  }

  /**
   * The request's cost in units of the limit; for a learned cost, remembers the request's group so
   * that {@link Gate#after} can teach the cost its service time.
   */
  @Override
  public int units(Context ctx, LimiterEntry limiter, RequestInfo info) {
    RequestCost cost = limiter.cost();
    int units;
    try {
      units = cost.of(info, ctx::queryParam);
    } catch (RequestCost.BadCost e) {
      throw new AdmissionFlow.BadRequest(e.getMessage());
    }
    if (cost.learns()) {
      ctx.attribute(CostSample.ATTRIBUTE, new CostSample(cost, cost.group(info)));
    }
    return units;
  }

  /** A platform thread's passage and request info, for the decision it is making. */
  static final class Turn {
    private final Passage passage = new Passage();
    private final ContextRequestInfo info;
    private Context deciding; // the request being decided, whose info is this thread's

    private Turn(ContextRequestInfo info) {
      this.info = info;
    }

    Passage passage() {
      return passage;
    }

    /** Lets go of the request, so an idle thread keeps no finished request reachable. */
    void end() {
      deciding = null;
      info.clear();
    }
  }
}
