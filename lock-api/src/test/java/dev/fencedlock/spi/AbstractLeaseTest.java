package dev.fencedlock.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.NodeFailure;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The lease lifecycle against a scripted backend: pure logic of the base class, no servers. */
class AbstractLeaseTest {
    private LeaseRuntime runtime;

    @AfterEach
    void closeRuntime() {
        if (runtime != null) {
            runtime.close();
        }
    }

    private LeaseRuntime runtime(LockConfig.Builder config) {
        runtime = new LeaseRuntime(config.backend("scripted").build(), MonotonicClock.SYSTEM);
        return runtime;
    }

    /** A backend whose extension answers come from a script; it records every call in order. */
    private static final class ScriptedLease extends AbstractLease {
        final ConcurrentLinkedQueue<String> calls = new ConcurrentLinkedQueue<>();
        final CountDownLatch released = new CountDownLatch(1);
        volatile Supplier<Optional<Duration>> extension;

        ScriptedLease(LeaseRuntime runtime, Duration leaseTime, boolean autoRenew, Supplier<Optional<Duration>> ext) {
            this(runtime, leaseTime, leaseTime, autoRenew, ext);
        }

        /** A grant valid for {@code validity} from now, shorter than its lease time when the grant was slow. */
        ScriptedLease(
                LeaseRuntime runtime,
                Duration leaseTime,
                Duration validity,
                boolean autoRenew,
                Supplier<Optional<Duration>> ext) {
            super("scripted", 1, leaseTime, autoRenew, runtime.clock().nanoTime() + validity.toNanos(), runtime);
            this.extension = ext;
        }

        @Override
        protected Optional<Duration> doExtend(Duration leaseTime) {
            calls.add("extend");
            return extension.get();
        }

        @Override
        protected void doRelease() {
            calls.add("release");
            released.countDown();
        }
    }

    private static <T extends AbstractLease> T grant(LeaseRuntime runtime, T lease) throws InterruptedException {
        AbstractFencedLock lock = new AbstractFencedLock("scripted", runtime) {
            @Override
            protected Optional<? extends AbstractLease> doAcquire(LeaseRequest request) {
                return Optional.of(lease);
            }
        };
        lock.tryAcquire(Duration.ZERO);
        return lease;
    }

    /**
     * Waits until nothing more can happen to the runtime's leases: no housekeeping task is queued or
     * running on the scheduler (a renewal scheduled after a release would stay queued, and fail this
     * wait), then every loss notification handed to the notifier so far has been delivered.
     */
    private static void awaitQuiet(LeaseRuntime rt) throws InterruptedException {
        // Releases and blocking backend calls run on the backend executor and hand their follow-up
        // (listener notices) back to the notifier, so both pools must be idle before the notifier is.
        ScheduledThreadPoolExecutor scheduler = (ScheduledThreadPoolExecutor) rt.scheduler();
        ThreadPoolExecutor backend = (ThreadPoolExecutor) rt.backendExecutor();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        // the leases' timer may leave its wake-up armed with nothing pending: that is no work
        while (rt.timer().pending() > 0
                || scheduler.getQueue().stream()
                        .anyMatch(task -> task != rt.timer().armedWake())
                || scheduler.getActiveCount() > 0
                || !backend.getQueue().isEmpty()
                || backend.getActiveCount() > 0) {
            assertThat(System.nanoTime() - deadline)
                    .as("scheduler and backend executor idle within 30 s; queued: %s", scheduler.getQueue())
                    .isNegative();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        CountDownLatch delivered = new CountDownLatch(1);
        rt.notify(delivered::countDown);
        assertThat(delivered.await(30, TimeUnit.SECONDS))
                .as("notifications delivered")
                .isTrue();
    }

    private static LockUnavailableException unavailable() {
        return new LockUnavailableException(
                "scripted", Duration.ZERO, 1, 1, List.of(new NodeFailure("node-1", new IOException("down"))));
    }

    @Test
    void transientRenewalFailuresAreRetriedWhileValidityRemains() throws Exception {
        LeaseRuntime rt = runtime(LockConfig.builder());
        Duration leaseTime = Duration.ofSeconds(2);
        AtomicInteger failuresLeft = new AtomicInteger(2);
        CountDownLatch fourRenewals = new CountDownLatch(4);
        ScriptedLease lease = grant(rt, new ScriptedLease(rt, leaseTime, true, () -> {
            fourRenewals.countDown();
            if (failuresLeft.getAndDecrement() > 0) {
                throw unavailable();
            }
            return Optional.of(leaseTime);
        }));
        AtomicInteger losses = new AtomicInteger();
        lease.onLost((l, cause) -> losses.incrementAndGet());
        assertThat(fourRenewals.await(30, TimeUnit.SECONDS))
                .as("two failed and two successful renewals")
                .isTrue();
        assertThat(lease.isValid()).isTrue();
        assertThat(losses.get()).isZero();
        lease.close();
    }

    @Test
    void renewalFailingUntilValidityRunsOutLosesTheLeaseOnce() throws Exception {
        LeaseRuntime rt = runtime(LockConfig.builder());
        ScriptedLease lease = grant(rt, new ScriptedLease(rt, Duration.ofMillis(300), true, () -> {
            throw unavailable();
        }));
        CountDownLatch lost = new CountDownLatch(1);
        AtomicInteger losses = new AtomicInteger();
        lease.onLost((l, cause) -> {
            losses.incrementAndGet();
            lost.countDown();
        });
        assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(lease.isValid()).isFalse();
        awaitQuiet(rt);
        assertThat(losses.get()).isEqualTo(1);
        assertThat(lease.calls).contains("release");
    }

    @Test
    void holdTimeCapStopsRenewalAndTheLeaseRunsOut() throws Exception {
        // a lease long enough that a busy machine's scheduling delays cannot expire it between renewals
        Duration leaseTime = Duration.ofMillis(600);
        LeaseRuntime rt = runtime(LockConfig.builder().leaseTime(leaseTime).maxHoldTime(Duration.ofMillis(1800)));
        long start = System.nanoTime();
        ScriptedLease lease = grant(rt, new ScriptedLease(rt, leaseTime, true, () -> Optional.of(leaseTime)));
        CountDownLatch lost = new CountDownLatch(1);
        StringBuilder reason = new StringBuilder();
        lease.onLost((l, cause) -> {
            reason.append(cause.getMessage());
            lost.countDown();
        });
        assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
        long heldMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(heldMillis).as("held for ms (cap 1800 ms)").isBetween(1_000L, 1_800L + 5_000L);
        assertThat(reason.toString()).contains("hold-time cap of 1800ms");
    }

    @Test
    void anAutoRenewingLeaseSchedulesOnlyItsRenewalUntilTheRenewalRuns() throws Exception {
        LeaseRuntime rt = runtime(LockConfig.builder());
        LeaseTimer timer = rt.timer();
        assertThat(timer.pending()).isZero();
        Duration leaseTime = Duration.ofSeconds(30); // first renewal due after 10 s
        ScriptedLease lease = grant(rt, new ScriptedLease(rt, leaseTime, true, () -> Optional.of(leaseTime)));
        assertThat(timer.pending())
                .as("one task (the renewal) for a grant that is closed before its first renewal")
                .isEqualTo(1);
        lease.close();
        assertThat(timer.pending()).isZero();
        assertThat(lease.calls).containsExactly("release");
    }

    @Test
    void aGrantWhoseValidityEndsBeforeItsFirstRenewalIsLostWhenValidityEnds() throws Exception {
        LeaseRuntime rt = runtime(LockConfig.builder());
        Duration leaseTime = Duration.ofSeconds(60); // first renewal due after 20 s
        // a slow grant: 300 ms of validity left
        ScriptedLease lease =
                grant(rt, new ScriptedLease(rt, leaseTime, Duration.ofMillis(300), true, () -> Optional.of(leaseTime)));
        CountDownLatch lost = new CountDownLatch(1);
        lease.onLost((l, cause) -> lost.countDown());
        assertLostWithoutARenewal(
                rt, lease, lost, "lost by the watchdog when its validity ran out, not 20 s later by the first renewal");
    }

    @Test
    void renewalStoppedBeforeTheFirstRenewalStillRunsOutAndIsLost() throws Exception {
        LeaseRuntime rt = runtime(LockConfig.builder());
        Duration leaseTime = Duration.ofMillis(900); // first renewal due after 300 ms
        ScriptedLease lease = grant(rt, new ScriptedLease(rt, leaseTime, true, () -> Optional.of(leaseTime)));
        CountDownLatch lost = new CountDownLatch(1);
        lease.onLost((l, cause) -> lost.countDown());
        lease.stopRenewal("the test stops it");
        assertLostWithoutARenewal(rt, lease, lost, "the watchdog marks the lease lost though no renewal ever ran");
    }

    /** Waits for the loss (15 s at most), then checks the backend saw the release and no extension. */
    private static void assertLostWithoutARenewal(LeaseRuntime rt, ScriptedLease lease, CountDownLatch lost, String why)
            throws InterruptedException {
        assertThat(lost.await(15, TimeUnit.SECONDS)).as(why).isTrue();
        assertThat(lease.isValid()).isFalse();
        awaitQuiet(rt);
        assertThat(lease.calls).containsExactly("release");
    }

    @Test
    void anAutoRenewingLeaseExtendedToLessThanItsRenewalPeriodIsRenewedInTime() throws Exception {
        LeaseRuntime rt = runtime(LockConfig.builder());
        Duration leaseTime = Duration.ofSeconds(30); // first renewal due after 10 s
        CountDownLatch renewed = new CountDownLatch(1);
        ScriptedLease lease = grant(rt, new ScriptedLease(rt, leaseTime, true, () -> Optional.of(leaseTime)));
        AtomicInteger losses = new AtomicInteger();
        lease.onLost((l, cause) -> losses.incrementAndGet());
        lease.extension = () -> Optional.of(Duration.ofMillis(900));
        lease.extend(Duration.ofMillis(900));
        lease.extension = () -> {
            renewed.countDown();
            return Optional.of(leaseTime);
        };
        assertThat(renewed.await(5, TimeUnit.SECONDS))
                .as("a renewal within the shortened validity, not 10 s later")
                .isTrue();
        assertThat(lease.isValid()).isTrue();
        assertThat(losses.get()).isZero();
        lease.close();
    }

    @Test
    void aRenewalThatShortensValidityMovesTheWatchdogBack() throws Exception {
        LeaseRuntime rt = runtime(LockConfig.builder());
        Duration leaseTime = Duration.ofMillis(600);
        CountDownLatch longRenewals = new CountDownLatch(4);
        // renewals every 200 ms that grant 60 s: the watchdog, due at 600 ms, looks again at 60 s
        ScriptedLease lease = grant(rt, new ScriptedLease(rt, leaseTime, true, () -> {
            longRenewals.countDown();
            return Optional.of(Duration.ofSeconds(60));
        }));
        CountDownLatch lost = new CountDownLatch(1);
        lease.onLost((l, cause) -> lost.countDown());
        assertThat(longRenewals.await(20, TimeUnit.SECONDS)).isTrue();
        AtomicInteger renewals = new AtomicInteger();
        lease.extension = () -> {
            if (renewals.getAndIncrement() == 0) {
                return Optional.of(leaseTime);
            }
            throw unavailable();
        };
        assertThat(lost.await(20, TimeUnit.SECONDS))
                .as("lost when the 600 ms granted by the last renewal ran out, not 60 s after the one before")
                .isTrue();
        assertThat(lease.isValid()).isFalse();
    }

    @Test
    void closeWaitsForARenewalInFlightAndNoRenewalFollowsTheRelease() throws Exception {
        LeaseRuntime rt = runtime(LockConfig.builder());
        CountDownLatch renewalEntered = new CountDownLatch(1);
        CountDownLatch finishRenewal = new CountDownLatch(1);
        Duration leaseTime = Duration.ofMillis(300);
        ScriptedLease lease = grant(rt, new ScriptedLease(rt, leaseTime, true, () -> {
            renewalEntered.countDown();
            try {
                finishRenewal.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Optional.of(leaseTime);
        }));
        assertThat(renewalEntered.await(5, TimeUnit.SECONDS)).isTrue();
        Thread closer = new Thread(lease::close);
        closer.start();
        awaitBlocked(closer);
        assertThat(lease.calls)
                .as("close waits for the renewal in flight before it releases")
                .containsExactly("extend");
        lease.extension = () -> Optional.of(leaseTime);
        finishRenewal.countDown();
        closer.join(5_000);
        assertThat(closer.isAlive()).isFalse();
        awaitQuiet(rt);
        assertThat(lease.calls).containsExactly("extend", "release");
    }

    /** Waits (30 s at most) until {@code thread} waits for something, as a thread blocked on a call does. */
    private static void awaitBlocked(Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (thread.getState() != Thread.State.WAITING && thread.getState() != Thread.State.TIMED_WAITING) {
            assertThat(thread.isAlive())
                    .as("%s still running", thread.getName())
                    .isTrue();
            assertThat(System.nanoTime() - deadline)
                    .as("%s blocked within 30 s", thread.getName())
                    .isNegative();
            Thread.onSpinWait();
        }
    }

    @Test
    void concurrentLossReportsTellEachListenerExactlyOnce() throws Exception {
        LeaseRuntime rt = runtime(LockConfig.builder());
        ScriptedLease lease = grant(
                rt, new ScriptedLease(rt, Duration.ofSeconds(30), false, () -> Optional.of(Duration.ofSeconds(30))));
        AtomicInteger first = new AtomicInteger();
        AtomicInteger second = new AtomicInteger();
        lease.onLost((l, cause) -> first.incrementAndGet());
        lease.onLost((l, cause) -> second.incrementAndGet());
        int threads = 8;
        CyclicBarrier barrier = new CyclicBarrier(threads);
        Thread[] reporters = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            reporters[i] = new Thread(() -> {
                try {
                    barrier.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                lease.markLost("session expired", null);
            });
            reporters[i].start();
        }
        for (Thread reporter : reporters) {
            reporter.join();
        }
        awaitQuiet(rt);
        assertThat(first.get()).isEqualTo(1);
        assertThat(second.get()).isEqualTo(1);
        assertThat(lease.calls.stream().filter("release"::equals).count()).isEqualTo(1);
        lease.close();
        assertThat(lease.calls.stream().filter("release"::equals).count()).isEqualTo(1);
    }

    @Test
    void aLostLeaseIsNeverRevivedOrRenewedAfterTheLoss() throws Exception {
        LeaseRuntime rt = runtime(LockConfig.builder());
        Duration leaseTime = Duration.ofMillis(300);
        ScriptedLease lease = grant(rt, new ScriptedLease(rt, leaseTime, true, () -> Optional.of(leaseTime)));
        lease.markLost("suspended", null);
        assertThat(lease.released.await(5, TimeUnit.SECONDS)).isTrue();
        List<String> afterRelease = List.copyOf(lease.calls);
        assertThat(afterRelease).as("the loss releases on the backend").endsWith("release");
        awaitQuiet(rt);
        Lease asLease = lease;
        assertThat(asLease.isValid()).isFalse();
        assertThat(lease.calls).as("no renewal after the release").containsExactlyElementsOf(afterRelease);
    }

    /** A backend whose renewals are asynchronous and never answer until the test says so. */
    private static final class SilentLease extends AbstractLease {
        final CompletableFuture<Optional<Duration>> answer = new CompletableFuture<>();
        final AtomicInteger renewals = new AtomicInteger();
        private final CountDownLatch renewalStarted;

        SilentLease(LeaseRuntime runtime, Duration leaseTime, CountDownLatch renewalStarted) {
            super("silent", 1, leaseTime, true, runtime.clock().nanoTime() + leaseTime.toNanos(), runtime);
            this.renewalStarted = renewalStarted;
        }

        @Override
        protected Optional<Duration> doExtend(Duration leaseTime) {
            throw new AssertionError("renewals must use doExtendAsync");
        }

        @Override
        protected CompletableFuture<Optional<Duration>> doExtendAsync(Duration leaseTime) {
            if (renewals.incrementAndGet() == 1) {
                renewalStarted.countDown();
            }
            return answer;
        }

        @Override
        protected void doRelease() {}

        @Override
        protected CompletableFuture<Void> doReleaseAsync() {
            return CompletableFuture.completedFuture(null);
        }
    }

    @Test
    void renewalsThatNeverAnswerHoldUpNoOtherLease() throws Exception {
        LeaseRuntime rt = runtime(LockConfig.builder());
        Duration leaseTime = Duration.ofMillis(300);
        int silentLeases = 4 * Math.max(2, Runtime.getRuntime().availableProcessors());
        CountDownLatch silentRenewalsStarted = new CountDownLatch(silentLeases);
        List<SilentLease> silent = new ArrayList<>();
        for (int i = 0; i < silentLeases; i++) {
            silent.add(grant(rt, new SilentLease(rt, Duration.ofSeconds(60), silentRenewalsStarted)));
        }
        try {
            assertThat(silentRenewalsStarted.await(50, TimeUnit.SECONDS))
                    .as("every silent lease's first renewal started")
                    .isTrue();
            assertThat(silent).as("silent leases whose renewal is in flight").allMatch(l -> l.renewals.get() == 1);
            // more renewals now wait for silent nodes than the scheduler has threads
            CountDownLatch fiveRenewals = new CountDownLatch(5);
            ScriptedLease healthy = grant(rt, new ScriptedLease(rt, leaseTime, true, () -> {
                fiveRenewals.countDown();
                return Optional.of(leaseTime);
            }));
            assertThat(fiveRenewals.await(50, TimeUnit.SECONDS))
                    .as("renewals of the healthy lease while the others wait for silent nodes")
                    .isTrue();
            assertThat(healthy.isValid()).isTrue();
            healthy.close();
        } finally {
            // also when an assertion failed: closing a lease waits for its renewal in flight, so the
            // runtime's close after the test would otherwise wait for these answers for ever
            silent.forEach(lease -> lease.answer.complete(Optional.of(Duration.ofSeconds(60))));
        }
    }
}
