package dev.fencedlock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link LeaseTimer}: the schedule/cancel contract the leases rely on, on one armed wake-up. */
@Timeout(60)
class LeaseTimerTest {
    private final AtomicInteger scheduled = new AtomicInteger();
    private final ScheduledThreadPoolExecutor scheduler = scheduler();
    private final LeaseTimer timer = new LeaseTimer(scheduler);

    /** As the runtime's scheduler, counting every task handed to it. */
    private ScheduledThreadPoolExecutor scheduler() {
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(2) {
            @Override
            protected <V> RunnableScheduledFuture<V> decorateTask(Runnable runnable, RunnableScheduledFuture<V> task) {
                scheduled.incrementAndGet();
                return task;
            }
        };
        scheduler.setRemoveOnCancelPolicy(true);
        scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return scheduler;
    }

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    @Test
    void aTaskRunsNoEarlierThanItsDelay() throws Exception {
        CountDownLatch ran = new CountDownLatch(1);
        long[] ranAt = new long[1];
        long start = System.nanoTime();
        timer.schedule(
                () -> {
                    ranAt[0] = System.nanoTime();
                    ran.countDown();
                },
                TimeUnit.MILLISECONDS.toNanos(100));

        assertThat(ran.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(ranAt[0] - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
        assertThat(timer.pending()).isZero();
    }

    @Test
    void aTaskDueBeforeTheArmedWakeUpDoesNotWaitForIt() throws Exception {
        CountDownLatch lateRan = new CountDownLatch(1);
        CountDownLatch earlyRan = new CountDownLatch(1);
        long start = System.nanoTime();
        LeaseTimer.Task late = timer.schedule(lateRan::countDown, TimeUnit.SECONDS.toNanos(20));
        timer.schedule(earlyRan::countDown, TimeUnit.MILLISECONDS.toNanos(50));

        // without re-arming for the earlier task it would run with the later one, 20 s in
        assertThat(earlyRan.await(15, TimeUnit.SECONDS)).isTrue();
        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(20));
        assertThat(lateRan.getCount()).isEqualTo(1);
        late.cancel();
        assertThat(timer.pending()).isZero();
    }

    @Test
    void aCancelledTaskNeverRuns() throws Exception {
        CountDownLatch cancelledRan = new CountDownLatch(1);
        CountDownLatch keptRan = new CountDownLatch(1);
        LeaseTimer.Task cancelled = timer.schedule(cancelledRan::countDown, TimeUnit.MILLISECONDS.toNanos(50));
        timer.schedule(keptRan::countDown, TimeUnit.MILLISECONDS.toNanos(200));
        cancelled.cancel();
        cancelled.cancel();

        assertThat(keptRan.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(cancelledRan.getCount()).as("the cancelled task did not run").isEqualTo(1);
    }

    @Test
    void shortLivedTasksDoNotReachTheSchedulerOneByOne() {
        for (int i = 0; i < 1_000; i++) {
            LeaseTimer.Task watchdog = timer.schedule(() -> {}, TimeUnit.SECONDS.toNanos(30));
            LeaseTimer.Task renewal = timer.schedule(() -> {}, TimeUnit.SECONDS.toNanos(10));
            renewal.cancel();
            watchdog.cancel();
        }

        assertThat(timer.pending()).isZero();
        // scheduling each task would be 2,000 tasks, each waking a scheduler thread when due first;
        // here the later tasks find the first wake-up armed ahead of them
        assertThat(scheduled.get()).isLessThanOrEqualTo(2);
    }

    @Test
    void aStoppedSchedulerRejectsNewTasksAndRunsNoPendingOne() throws Exception {
        CountDownLatch ran = new CountDownLatch(1);
        timer.schedule(ran::countDown, TimeUnit.MILLISECONDS.toNanos(100));
        scheduler.shutdown();

        assertThatThrownBy(() -> timer.schedule(() -> {}, TimeUnit.SECONDS.toNanos(1)))
                .isInstanceOf(RejectedExecutionException.class);
        assertThat(scheduler.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        assertThat(ran.getCount()).isEqualTo(1);
    }
}
