package dev.fencedlock.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.LockConfig;
import dev.fencedlock.LockConfig.FallbackTakeover;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.RecordingListener;
import dev.fencedlock.internal.local.LocalProviderFactory;
import dev.fencedlock.spi.FailoverRules.Phase;
import dev.fencedlock.spi.FailoverRules.Route;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The takeover and switch-back instants of {@link Failover}, on a clock the test moves: pure state
 * logic, no probe (its interval is an hour, and the test reports what a probe would have heard).
 */
@Timeout(60)
class FailoverTest {
    private static final Duration PROBE = Duration.ofHours(1);
    private static final long SECOND = Duration.ofSeconds(1).toNanos();

    private final AtomicLong now = new AtomicLong(1_000 * SECOND);
    private final MonotonicClock clock = now::get;
    private final RecordingListener events = new RecordingListener();
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable closeable : open) {
            closeable.close();
        }
    }

    private Failover failover(FallbackTakeover takeover, Duration leaseTime) {
        LockConfig config = FallbackTest.acmeWithLocalFallback(takeover, leaseTime);
        FallbackLeases fallbackLeases = new FallbackLeases(events);
        Backend primary = backend("acme", config, events, new AcmeProviderFactory());
        Backend fallback = backend("local", config, fallbackLeases, new LocalProviderFactory());
        Failover failover = new Failover(primary, fallback, fallbackLeases, events, config, PROBE, clock);
        open.add(failover);
        return failover;
    }

    private Backend backend(
            String name,
            LockConfig config,
            dev.fencedlock.LockEventListener listener,
            dev.fencedlock.spi.LockProviderFactory factory) {
        LeaseRuntime runtime = new LeaseRuntime(name, config, clock, listener);
        Backend backend = new Backend(name, runtime, factory.create(config, runtime));
        open.add(backend::close);
        return backend;
    }

    private static LockUnavailableException down() {
        return new LockUnavailableException("x", "acme is down", null);
    }

    private void advance(long nanos) {
        now.addAndGet(nanos);
    }

    @Test
    void theFallbackGrantsOnceTheLongerOfTheLeaseTimeAndTheLongestFixedLeaseHasPassedSinceTheFailure() {
        Failover failover = failover(FallbackTakeover.WAIT_OUT, Duration.ofSeconds(3));
        failover.noteFixedLease(true, Duration.ofSeconds(5));
        failover.noteFixedLease(false, Duration.ofSeconds(9)); // the fallback's: not the primary's figure
        assertThat(failover.route("x")).isEqualTo(Route.PRIMARY);
        assertThat(failover.primaryWaitOut()).isEqualTo(Duration.ofSeconds(5));

        long failedAt = now.get();
        failover.primaryFailed("x", down());
        assertThat(failover.route("x")).isEqualTo(Route.waitUntil(Phase.DOWN, failedAt + 5 * SECOND));
        assertThat(failover.fallbackMayGrant()).isFalse();
        advance(5 * SECOND - 1);
        assertThat(failover.route("x").toFallback()).isFalse();
        advance(1);
        assertThat(failover.route("x")).isEqualTo(Route.FALLBACK);
        assertThat(failover.fallbackMayGrant()).isTrue();
        assertThat(events.pending()).containsExactly("switched x acme->local LockUnavailableException");
    }

    @Test
    void aPrimaryGrantOfAnAttemptStartedAfterTheFailurePushesTheTakeoverOut() {
        Failover failover = failover(FallbackTakeover.WAIT_OUT, Duration.ofSeconds(3));
        long failedAt = now.get();
        failover.primaryFailed("x", down());
        failover.primaryAnswered(failedAt + SECOND, true);
        assertThat(failover.route("x")).isEqualTo(Route.waitUntil(Phase.DOWN, failedAt + 4 * SECOND));
        failover.primaryAnswered(failedAt + 2 * SECOND, false); // "taken" grants nothing
        assertThat(failover.route("x")).isEqualTo(Route.waitUntil(Phase.DOWN, failedAt + 4 * SECOND));
    }

    @Test
    void afterATakeoverThePrimaryGrantsOnlyOnceTheFallbacksLeasesCanNoLongerBeValid() {
        Failover failover = failover(FallbackTakeover.WAIT_OUT, Duration.ofSeconds(3));
        failover.noteFixedLease(false, Duration.ofSeconds(4));
        failover.primaryAnswered(now.get(), true);
        failover.primaryFailed("x", down());
        advance(3 * SECOND);
        assertThat(failover.route("x")).isEqualTo(Route.FALLBACK);
        advance(10 * SECOND);

        long heardAt = now.get();
        failover.primaryAnswersAgain(heardAt);
        long switchBack = heardAt + 4 * SECOND + PROBE.toNanos();
        assertThat(failover.route("y")).isEqualTo(Route.waitUntil(Phase.RETURNING, switchBack));
        assertThat(failover.fallbackMayGrant())
                .as("a fallback grant of an acquisition already on its way is not handed out")
                .isFalse();
        assertThat(failover.notYet("y", failover.route("y"), Duration.ofSeconds(1))
                        .getMessage())
                .contains("backend acme answers again since", "once no lease of fallback local can still be valid");
        now.set(switchBack);
        assertThat(failover.route("y")).isEqualTo(Route.PRIMARY);
        assertThat(failover.route("z")).isEqualTo(Route.PRIMARY);
        assertThat(events.pending())
                .containsExactly("switched x acme->local LockUnavailableException", "switched y local->acme -");
    }

    @Test
    void aPrimaryThatAnswersAgainBeforeAnyClientCouldHaveTakenOverIsUsedAtOnceAndLaterIsWaitedOut() {
        // 3 h after the last answer, less the probe interval, is the last instant a return is free
        long free = Duration.ofHours(2).toNanos();
        assertThat(phaseAfterReturn(free - 1)).isEqualTo(Phase.PRIMARY);
        assertThat(phaseAfterReturn(free)).isEqualTo(Phase.RETURNING);
    }

    /** The phase when the primary, last heard at t, fails at t + 1 s and answers again at t + {@code back}. */
    private Phase phaseAfterReturn(long back) {
        Failover failover = failover(FallbackTakeover.WAIT_OUT, Duration.ofHours(3));
        long lastAnswer = now.get();
        failover.primaryAnswered(lastAnswer, false);
        advance(SECOND);
        failover.primaryFailed("x", down());
        now.set(lastAnswer + back);
        failover.primaryAnswersAgain(now.get());
        Phase phase = failover.route("x").phase();
        now.set(lastAnswer);
        return phase;
    }

    @Test
    void aClientThatNeverHeardThePrimaryWaitsOutTheFallbackAtItsReturn() {
        Failover failover = failover(FallbackTakeover.WAIT_OUT, Duration.ofSeconds(3));
        failover.primaryFailed("x", down());
        advance(SECOND);
        failover.primaryAnswersAgain(now.get());
        assertThat(failover.route("x").phase()).isEqualTo(Phase.RETURNING);
    }

    @Test
    void immediateTakesOverAndSwitchesBackAtOnce() {
        Failover failover = failover(FallbackTakeover.IMMEDIATE, Duration.ofSeconds(3));
        failover.primaryFailed("x", down());
        assertThat(failover.route("x")).isEqualTo(Route.FALLBACK);
        failover.primaryAnswersAgain(now.get());
        assertThat(failover.route("x")).isEqualTo(Route.PRIMARY);
    }
}
