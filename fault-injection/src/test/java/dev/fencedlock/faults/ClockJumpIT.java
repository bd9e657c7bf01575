package dev.fencedlock.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.LockClient;
import dev.fencedlock.faults.db.FaultDatabase;
import dev.fencedlock.faults.db.FencedIncrement;
import dev.fencedlock.faults.db.UnfencedIncrement;
import dev.fencedlock.faults.history.CheckReport;
import dev.fencedlock.faults.history.FencedWrite;
import dev.fencedlock.faults.history.History;
import dev.fencedlock.faults.history.HistoryChecker;
import dev.fencedlock.faults.history.HistoryRecorder;
import dev.fencedlock.faults.history.WriteOutcome;
import dev.fencedlock.faults.report.FaultMatrix;
import dev.fencedlock.faults.report.MatrixRow;
import dev.fencedlock.faults.workload.Acquisition;
import dev.fencedlock.faults.workload.Section;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.testkit.await.Await;
import dev.fencedlock.testkit.junit.PerClassResource;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import dev.fencedlock.testkit.net.TcpProxy;
import dev.fencedlock.testkit.redis.RedisServers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault 4: the clock-jump scenario from the critique of Redlock, on nodes A to E. The network is
 * split so that client 1 reaches A, B, C and client 2 reaches C, D, E (each client's proxies to the
 * other side refuse connections). Client 1 locks A, B, C; then C's clock jumps forward and its key
 * expires early, which is forced here with {@code PEXPIRE key 1} (libfaketime makes this machine's
 * redis-server abort); client 2 then locks C, D, E. Both hold valid leases at once: the lock has
 * failed, as the critique says it can. The fence must keep the counter right.
 *
 * <p>The fence row orders the fenced transactions of one lock by token: a transaction that begins
 * while another holds the row waits for it to end, and one whose token is below the row's is
 * refused when it begins. The rounds cycle through three schedules of the two clients' increments:
 *
 * <ul>
 *   <li>the old holder reads, the successor increments, the old holder writes late: its fenced
 *       transaction begins after the successor's and is refused;
 *   <li>the old holder increments before the successor: both are kept;
 *   <li>the old holder's transaction is open when the successor's begins: the successor's waits on
 *       the fence row (seen in the database's lock table), then reads what the old holder committed:
 *       both are kept.
 * </ul>
 *
 * <p>The same increments in the same order without the fence, on a control counter, lose one
 * update in the first and the third schedules: what the lock alone would have allowed.
 */
class ClockJumpIT {
    private static final Duration LEASE = Duration.ofSeconds(10);
    private static final Duration STEP = Duration.ofSeconds(60);
    private static final int A = 0;
    private static final int B = 1;
    private static final int C = 2;
    private static final int D = 3;
    private static final int E = 4;

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(5);

    @RegisterExtension
    static final PerClassResource<FaultDatabase> db = PerClassResource.of(FaultDatabase::create);

    private enum Schedule {
        HOLDER_WRITES_AFTER_SUCCESSOR(true, true),
        HOLDER_WRITES_FIRST(false, false),
        SUCCESSOR_BEGINS_WHILE_HOLDER_OPEN(false, true);

        final boolean fenceRefuses;
        final boolean controlLoses;

        Schedule(boolean fenceRefuses, boolean controlLoses) {
            this.fenceRefuses = fenceRefuses;
            this.controlLoses = controlLoses;
        }
    }

    @Test
    void twoHoldersAfterAnEarlyExpiryOnOneNodeLoseNoUpdateThanksToTheFence() throws Exception {
        RedisServers servers = redis.servers();
        String lock = "faults:clock-jump";
        String control = lock + ":unfenced";
        db.get().createCounter(lock, 0);
        db.get().createCounter(control, 0);
        HistoryRecorder recorder = new HistoryRecorder();
        int rounds = FaultRun.rounds(12);
        List<TcpProxy> view1 = RedisSetup.proxies(servers);
        List<TcpProxy> view2 = RedisSetup.proxies(servers);
        view1.get(D).reset();
        view1.get(E).reset();
        view2.get(A).reset();
        view2.get(B).reset();
        ExecutorService thread1 = Executors.newSingleThreadExecutor();
        ExecutorService thread2 = Executors.newSingleThreadExecutor();
        int bothValid = 0;
        int expectedRefusals = 0;
        int expectedControlLosses = 0;
        try (LockClient client1 = LockClient.create(
                        RedisSetup.config(RedisSetup.uris(view1), LEASE).build());
                LockClient client2 = LockClient.create(
                        RedisSetup.config(RedisSetup.uris(view2), LEASE).build())) {
            for (int round = 0; round < rounds; round++) {
                Schedule schedule = Schedule.values()[round % Schedule.values().length];
                expectedRefusals += schedule.fenceRefuses ? 1 : 0;
                expectedControlLosses += schedule.controlLoses ? 1 : 0;
                Section holder = on(
                        thread1,
                        () -> Section.enter(client1.lock(lock), Acquisition.fixed(STEP, LEASE), "client-1", recorder)
                                .orElseThrow(() -> new AssertionError("client 1 not granted on A, B, C")));
                UnfencedIncrement holderControl =
                        on(thread1, () -> holder.beginUnfenced(db.get().dataSource(), control));

                assertThat(servers.get(C).command("PEXPIRE", RedlockKeys.lockKey(lock), "1"))
                        .as("C held client 1's key")
                        .isEqualTo(1L);

                Section successor = on(
                        thread2,
                        () -> Section.enter(client2.lock(lock), Acquisition.fixed(STEP, LEASE), "client-2", recorder)
                                .orElseThrow(() -> new AssertionError("client 2 not granted on C, D, E")));
                if (on(thread1, holder::checkValid) && on(thread2, successor::checkValid)) {
                    bothValid++;
                }
                switch (schedule) {
                    case HOLDER_WRITES_AFTER_SUCCESSOR -> {
                        on(thread2, () -> incrementBoth(successor, lock, control));
                        on(thread1, () -> {
                            FencedWrite late = holder.increment(db.get().entityManagerFactory(), lock, holder.lease());
                            assertThat(late.outcome())
                                    .as("the old holder's transaction begins after the successor's")
                                    .isEqualTo(WriteOutcome.REFUSED_STALE);
                            holder.commit(holderControl);
                            holder.close();
                        });
                    }
                    case HOLDER_WRITES_FIRST -> {
                        on(thread1, () -> {
                            holder.increment(db.get().entityManagerFactory(), lock);
                            holder.commit(holderControl);
                            holder.close();
                        });
                        on(thread2, () -> incrementBoth(successor, lock, control));
                    }
                    case SUCCESSOR_BEGINS_WHILE_HOLDER_OPEN -> {
                        FencedIncrement holderWrite =
                                on(thread1, () -> holder.beginFenced(db.get().entityManagerFactory(), lock));
                        UnfencedIncrement successorControl = on(
                                thread2, () -> successor.beginUnfenced(db.get().dataSource(), control));
                        Future<FencedIncrement> successorWrite = thread2.submit(
                                () -> successor.beginFenced(db.get().entityManagerFactory(), lock));
                        Await.until(
                                "the successor's fenced transaction waits on the fence row",
                                STEP,
                                () -> db.get().sessionsWaitingOnFenceRow() > 0 || successorWrite.isDone());
                        assertThat(successorWrite)
                                .as("the successor cannot begin while the old holder's transaction is open")
                                .isNotDone();
                        on(thread1, () -> {
                            holder.commit(holderWrite);
                            holder.commit(holderControl);
                            holderWrite.close();
                            holder.close();
                        });
                        FencedIncrement begun = successorWrite.get(STEP.toMillis(), TimeUnit.MILLISECONDS);
                        on(thread2, () -> {
                            successor.commit(begun);
                            successor.commit(successorControl);
                            begun.close();
                            successor.close();
                        });
                    }
                }
            }
        } finally {
            thread1.shutdownNow();
            thread2.shutdownNow();
            RedisSetup.closeAll(view1);
            RedisSetup.closeAll(view2);
        }

        History history = recorder.snapshot();
        String scenario = "clock jump on one of five nodes";
        CheckReport report = FaultRun.check(
                scenario, history.writesTo(lock), List.of(db.get().counterState(lock, 0)));
        CheckReport unfenced =
                HistoryChecker.check(history.writesTo(control), List.of(db.get().counterState(control, 0)));
        assertThat(report.unsafeOverlaps())
                .as("two holders that both believed their lease valid, every round")
                .hasSize(rounds);
        assertThat(bothValid).isEqualTo(rounds);
        assertThat(report.lostUpdates()).as("updates lost behind the fence").isZero();
        assertThat(report.writesRefused())
                .as("one refusal in each round whose old holder begins after the successor")
                .isEqualTo(expectedRefusals);
        assertThat(unfenced.lostUpdates())
                .as("the control counter loses one update in each round where the holders' transactions overlap")
                .isEqualTo(expectedControlLosses);
        FaultMatrix.record(MatrixRow.of(
                "4-clock-jump",
                "clock jump on C of A-E (PEXPIRE 1), network split A,B,C | C,D,E; three write orders",
                "redlock",
                rounds,
                report,
                unfenced.lostUpdates() + " lost updates, " + unfenced.staleAccepted() + " stale writes accepted",
                "both holders valid at once in " + bothValid + " of " + rounds + " rounds; refusals "
                        + report.refusalReasons()));
    }

    private static void incrementBoth(Section successor, String lock, String control) {
        try (successor) {
            UnfencedIncrement controlWrite = successor.beginUnfenced(db.get().dataSource(), control);
            successor.increment(db.get().entityManagerFactory(), lock);
            successor.commit(controlWrite);
        }
    }

    private static <T> T on(ExecutorService thread, Callable<T> work) throws Exception {
        return thread.submit(work).get(STEP.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static void on(ExecutorService thread, Runnable work) throws Exception {
        thread.submit(work).get(STEP.toMillis(), TimeUnit.MILLISECONDS);
    }
}
