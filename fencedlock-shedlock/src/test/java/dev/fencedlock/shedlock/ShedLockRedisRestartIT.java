package dev.fencedlock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.shedlock.scheduled.ReportJob.Run;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A {@code @Scheduled} ShedLock job with a ten-minute {@code lockAtMostFor} on one {@code
 * redis-server} without persistence and the default (unset) restart quarantine: it runs, and a
 * restart of its Redis keeps it from running for {@code fencedlock.lease-time} (plus the second the
 * node's whole-second uptime may add and a tick), or, when a lease was live at the restart, until that
 * lease would have ended; never ten minutes for a lock nobody held. The lease time is 3 s here so
 * that the test is quick (with the default 30 s it measured 30.4 s); the relation is the one docs/shedlock-and-spring-integration.md states.
 */
class ShedLockRedisRestartIT extends ScheduledJobOnRedis {
    private static final Logger LOG = LoggerFactory.getLogger(ShedLockRedisRestartIT.class);
    /** The node's start is dated up to one second late (its uptime is whole seconds), plus one tick. */
    private static final Duration ROUNDING_AND_TICK = Duration.ofMillis(1250);
    /** Scheduling, process start and round trips on a loaded machine. */
    private static final Duration SLACK = Duration.ofMillis(1250);

    @Autowired
    LockProvider provider;

    @Test
    void aTenMinuteLockAtMostForRunsOnTheDefaultQuarantine() throws Exception {
        Run run = awaitRun();

        assertThat(run.leaseLeft()).as("the run's lease").isGreaterThan(Duration.ofMinutes(9));
        assertThat(job.nextRunAfter(System.nanoTime(), Duration.ofSeconds(5)))
                .as("the next tick runs too")
                .isNotNull();
    }

    @Test
    void aRestartWithNoLiveLeaseBlocksTheJobForAboutTheLeaseTime() throws Exception {
        Run last = awaitRun();
        // the run unlocks within milliseconds of recording; the next tick is 250 ms after it
        sleepUntil(last.startedNanos() + TimeUnit.MILLISECONDS.toNanos(100));

        long restarted = System.nanoTime();
        redis.restartEmpty();
        Run next = job.nextRunAfter(restarted, LEASE_TIME.plusSeconds(20));

        assertThat(next).as("a run after the restart").isNotNull();
        Duration blocked = Duration.ofNanos(next.startedNanos() - restarted);
        LOG.info("a restart of Redis with no live lease blocked the job for {} ms", blocked.toMillis());
        assertThat(blocked)
                .as("the restarted node counts from its start plus the lease time, not lockAtMostFor")
                .isGreaterThanOrEqualTo(LEASE_TIME)
                .isLessThanOrEqualTo(LEASE_TIME.plus(ROUNDING_AND_TICK).plus(SLACK));
    }

    @Test
    void aRestartDuringARunBlocksTheJobUntilThatRunsLeaseWouldHaveEnded() throws Exception {
        awaitRun();
        Duration lockAtMostFor = Duration.ofSeconds(6);
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            CountDownLatch running = new CountDownLatch(1);
            CountDownLatch finish = new CountDownLatch(1);
            long configured = System.nanoTime();
            LockConfiguration held = new LockConfiguration(ClockProvider.now(), "held", lockAtMostFor, Duration.ZERO);
            Future<?> run = thread.submit(() -> {
                new DefaultLockingTaskExecutor(provider)
                        .executeWithLock(
                                (Runnable) () -> {
                                    running.countDown();
                                    awaitQuietly(finish);
                                },
                                held);
                return null;
            });
            assertThat(running.await(10, TimeUnit.SECONDS))
                    .as("the held run started")
                    .isTrue();

            long restarted = System.nanoTime();
            redis.restartEmpty();
            finish.countDown();
            run.get(10, TimeUnit.SECONDS);
            Run next =
                    job.nextRunAfter(restarted, lockAtMostFor.plus(LEASE_TIME).plusSeconds(20));

            assertThat(next).as("a run after the restart").isNotNull();
            Duration sinceLocked = Duration.ofNanos(next.startedNanos() - configured);
            LOG.info(
                    "a restart of Redis during a run with lockAtMostFor {} ms blocked the job until {} ms after that"
                            + " run locked",
                    lockAtMostFor.toMillis(),
                    sinceLocked.toMillis());
            Duration driftAllowance = lockAtMostFor.dividedBy(100).plusMillis(2);
            assertThat(sinceLocked)
                    .as("no lock is granted while the forgotten lease may be valid; none later than its end")
                    .isGreaterThanOrEqualTo(lockAtMostFor)
                    .isLessThanOrEqualTo(lockAtMostFor
                            .plus(driftAllowance)
                            .plus(ROUNDING_AND_TICK)
                            .plus(SLACK));
        } finally {
            thread.shutdownNow();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
