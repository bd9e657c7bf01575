package dev.fencedlock.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.faults.db.DatabaseSettings;
import dev.fencedlock.faults.db.FaultDatabase;
import dev.fencedlock.faults.db.FencedIncrement;
import dev.fencedlock.faults.history.CheckReport;
import dev.fencedlock.faults.history.FencedWrite;
import dev.fencedlock.faults.history.History;
import dev.fencedlock.faults.history.HistoryRecorder;
import dev.fencedlock.faults.history.WriteOutcome;
import dev.fencedlock.faults.jdbc.Migrations;
import dev.fencedlock.faults.process.ClientProcess;
import dev.fencedlock.faults.report.FaultMatrix;
import dev.fencedlock.faults.report.MatrixRow;
import dev.fencedlock.faults.workload.Acquisition;
import dev.fencedlock.faults.workload.Section;
import dev.fencedlock.jdbcprovider.JdbcLockSettings;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.testkit.junit.PerClassResource;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import dev.fencedlock.testkit.zookeeper.ZooKeeperServers;
import dev.fencedlock.zookeeper.ZooKeeperSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault 3: a client process is paused past its lease. The client runs in a JVM of its own and is
 * stopped with SIGSTOP: its renewals and (on ZooKeeper) its heartbeats stop with it, which a paused
 * thread would not achieve. A second client must then be granted the lock (the lease ran out, or
 * the server expired the session). Two pause points, each run against every backend:
 *
 * <ul>
 *   <li><b>Inside its fenced transaction</b>, right after it read the counter. Its transaction's
 *       fence guard holds the lock's fence row, so the successor's fenced transaction waits for it
 *       at its first statement: the database serializes the lock's transactions, safety over
 *       liveness. The test sees the successor blocked on a lock in the database, then continues
 *       the paused client. Its late write must not be kept (the lease check before the flush or
 *       the commit refuses it), or, if it commits, it committed before the successor read
 *       anything, which then reads its increment. Then the successor completes.
 *   <li><b>Before its transaction's first statement</b>, right after {@code begin()} checked the
 *       lease and found it valid. The successor runs and commits freely; when the paused client
 *       is continued, its fence guard finds the newer token in the fence row and refuses the
 *       transaction ({@code NEWER_TOKEN_REGISTERED}).
 * </ul>
 *
 * Both: zero lost updates, and the paused client hears of its loss.
 */
class PausedClientIT {
    private static final Duration STARTUP = Duration.ofSeconds(90);
    private static final Duration STEP = Duration.ofSeconds(60);
    private static final Duration POLL = Duration.ofMillis(100);

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(3);

    @RegisterExtension
    static final PerClassResource<FaultDatabase> db = PerClassResource.of(FaultDatabase::create);

    @Test
    void redlockAPausedHolderIsSucceededAndItsLateWriteRefused() throws Exception {
        Duration lease = Duration.ofSeconds(2);
        LockConfig config = RedisSetup.config(redis.servers().uris(), lease).build();
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(LockConfig.BACKEND, "redlock");
        settings.put(RedlockSettings.NODES, redis.servers().nodes());
        settings.put(LockConfig.LEASE_TIME, "2s");
        settings.put(RedlockSettings.NODE_TIMEOUT, RedisSetup.NODE_TIMEOUT.toMillis() + "ms");
        settings.put(RedlockSettings.RETRY_DELAY, "50ms");
        pauseRounds(new Run("redlock", config, settings, "redlock", FaultRun.rounds(2), true));
    }

    /**
     * The jdbc backend, its lock table in the same PostgreSQL schema as the counters and the fence
     * table ({@link FaultDatabase#create()} made the latter). The paused
     * process's renewals stop with it; the database expires its grant by its own clock, and the
     * lease ended on the client's clock before that, so the successor never overlaps a holder that
     * still believes itself valid.
     */
    @Test
    void jdbcAPausedHolderIsSucceededAndItsLateWriteRefused() throws Exception {
        Migrations.migrateLockTable(db.get().dataSource());
        DatabaseSettings database = db.get().settings();
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(LockConfig.BACKEND, "jdbc");
        settings.put(JdbcLockSettings.URL, database.jdbcUrl());
        settings.put(JdbcLockSettings.USER, database.user());
        if (!database.password().isEmpty()) {
            settings.put(JdbcLockSettings.PASSWORD, database.password());
        }
        settings.put(JdbcLockSettings.POLL_INTERVAL, "50ms");
        settings.put(LockConfig.LEASE_TIME, "2s");
        pauseRounds(new Run("jdbc", LockConfig.fromMap(settings), settings, "jdbc", FaultRun.rounds(2), true));
    }

    /**
     * With the lease time below the session timeout, a renewal that confirmed the lock node at t
     * makes the lease valid until t + lease time, before the server can expire the session (which
     * it does no earlier than session timeout after it last heard from the client, at or after t).
     * So the paused client cannot believe itself valid once its successor is granted.
     */
    @Test
    void zookeeperWithALeaseShorterThanTheSessionTheLateWriteIsRefused() throws Exception {
        zookeeperRounds(Duration.ofSeconds(2), "zookeeper", FaultRun.rounds(2), true);
    }

    /**
     * With a lease time longer than the session timeout, validity is bounded by the session as
     * measured by the client; should a continued process still believe itself valid for a moment,
     * the fence in the database keeps its write out (or after the lock's later transactions).
     */
    @Test
    void zookeeperWithALeaseLongerThanTheSessionTheLateWriteIsRefused() throws Exception {
        zookeeperRounds(Duration.ofSeconds(30), "zookeeper-long-lease", FaultRun.rounds(1), false);
    }

    private void zookeeperRounds(Duration lease, String rowSuffix, int rounds, boolean boundedValidity)
            throws Exception {
        try (TestingServer server = ZooKeeperServers.start()) {
            Duration session = Duration.ofSeconds(3);
            LockConfig config = ZooKeeperSetup.config(server.getConnectString(), session, lease)
                    .build();
            Map<String, String> settings = new LinkedHashMap<>();
            settings.put(LockConfig.BACKEND, "zookeeper");
            settings.put(ZooKeeperSettings.CONNECT, server.getConnectString());
            settings.put(ZooKeeperSettings.SESSION_TIMEOUT, session.toMillis() + "ms");
            settings.put(LockConfig.LEASE_TIME, lease.toMillis() + "ms");
            pauseRounds(new Run("zookeeper", config, settings, rowSuffix, rounds, boundedValidity));
        }
    }

    /**
     * One backend's run of both pause points.
     *
     * @param rowSuffix ends the ids of the fault-matrix rows, e.g. {@code 3-pause-<rowSuffix>}
     * @param boundedValidity whether the lease's validity is bounded in time (Redlock, jdbc;
     *     ZooKeeper with a lease shorter than the session), so that the paused client cannot have
     *     believed itself valid after the successor was granted
     */
    private record Run(
            String backend,
            LockConfig config,
            Map<String, String> settings,
            String rowSuffix,
            int rounds,
            boolean boundedValidity) {
        String leaseText() {
            return config.leaseTime().toSeconds() + " s" + (backend.equals("zookeeper") ? ", session 3 s" : "");
        }
    }

    private void pauseRounds(Run run) throws Exception {
        String inside = "faults:3-pause-" + run.rowSuffix();
        String beforeGuard = "faults:3b-pause-before-guard-" + run.rowSuffix();
        db.get().createCounter(inside, 0);
        db.get().createCounter(beforeGuard, 0);
        HistoryRecorder recorder = new HistoryRecorder();
        History paused;
        PauseRounds insideRounds;
        ExecutorService successors = Executors.newSingleThreadExecutor();
        try (LockClient successor = LockClient.create(run.config());
                ClientProcess client = ClientProcess.start(
                        "3-pause-" + run.rowSuffix(),
                        Path.of("target", "client-processes"),
                        db.get().settings(),
                        run.settings(),
                        Duration.ofSeconds(30),
                        Duration.ofSeconds(30),
                        STARTUP)) {
            insideRounds = pauseInsideTransaction(run, inside, client, successor, successors, recorder);
            pauseBeforeGuard(run, beforeGuard, client, successor, recorder);
            paused = client.finish(STEP);
        } finally {
            successors.shutdownNow();
            successors.awaitTermination(STEP.toSeconds(), TimeUnit.SECONDS);
        }
        History all = History.merge(paused, recorder.snapshot());

        CheckReport insideReport = checked(run, inside, all, "paused inside its transaction");
        int committedBeforeSuccessor = insideRounds.committed();
        assertThat(insideReport.writesRefused() + committedBeforeSuccessor).isEqualTo(run.rounds());
        if (run.boundedValidity()) {
            assertThat(committedBeforeSuccessor)
                    .as("a paused client whose validity is bounded in time committed after its pause")
                    .isZero();
        }
        FaultMatrix.record(MatrixRow.of(
                "3-pause-" + run.rowSuffix(),
                "client JVM stopped (SIGSTOP) inside its fenced transaction, after its read, past its lease ("
                        + run.leaseText() + "); the successor's guard waited on the fence row until the"
                        + " database ended the paused transaction (idle past its lease) or the client was continued",
                run.backend(),
                run.rounds(),
                insideReport,
                "-",
                "successor seen waiting on the row lock in " + insideRounds.blocked() + " of " + run.rounds()
                        + " rounds (in the others the database had ended the paused transaction already);"
                        + " late writes committed before the successor read: " + committedBeforeSuccessor
                        + "; refusals " + insideReport.refusalReasons()));

        CheckReport beforeReport = checked(run, beforeGuard, all, "paused before its first statement");
        assertThat(beforeReport.writesRefused()).isEqualTo(run.rounds());
        assertThat(beforeReport.refusalReasons()).containsOnlyKeys("NEWER_TOKEN_REGISTERED");
        FaultMatrix.record(MatrixRow.of(
                "3b-pause-before-guard-" + run.rowSuffix(),
                "client JVM stopped (SIGSTOP) after begin() checked its lease, before the fence guard, past its"
                        + " lease (" + run.leaseText() + "); continued after the successor committed",
                run.backend(),
                run.rounds(),
                beforeReport,
                "-",
                "refusals " + beforeReport.refusalReasons()));
    }

    /** Pause point 1, {@code run.rounds()} times. */
    private PauseRounds pauseInsideTransaction(
            Run run,
            String lock,
            ClientProcess client,
            LockClient successor,
            ExecutorService successors,
            HistoryRecorder recorder)
            throws Exception {
        // the lock's fence row exists, as after any earlier transaction of the lock: every pause then
        // holds it with the guard's update, which the successor's update waits for
        try (Section first = Section.enter(successor.lock(lock), Acquisition.renewing(STEP), "first", recorder)
                .orElseThrow(() -> new AssertionError("the lock is free, yet not granted"))) {
            assertThat(first.increment(db.get().entityManagerFactory(), lock).outcome())
                    .isEqualTo(WriteOutcome.OK);
        }
        int committed = 0;
        int blocked = 0;
        for (int round = 0; round < run.rounds(); round++) {
            client.send("ROUND " + lock + " " + lock);
            String[] holding = client.expect("HOLDING", STEP).split(" ");
            long pausedToken = Long.parseLong(holding[1]);
            long pausedRead = Long.parseLong(holding[2]);
            client.stop();
            Future<SuccessorWrite> next;
            try {
                next = successors.submit(() -> successorIncrement(successor, lock, recorder));
                if (awaitBlockedOnFenceRow(next)) {
                    blocked++;
                }
            } finally {
                client.resume();
            }
            client.send("WRITE");
            String wrote = client.expect("WROTE", STEP);
            assertThat(client.expect("DONE", STEP))
                    .as("the paused client was told of its loss")
                    .isEqualTo("DONE lost=true");
            SuccessorWrite successorWrite = next.get(STEP.toSeconds(), TimeUnit.SECONDS);
            assertThat(successorWrite.token()).isGreaterThan(pausedToken);
            assertThat(successorWrite.write().outcome())
                    .as("the successor completes once the paused transaction ended")
                    .isEqualTo(WriteOutcome.OK);
            if (wrote.startsWith("WROTE OK")) {
                committed++;
                assertThat(successorWrite.read())
                        .as("a late write that committed did so before the successor read")
                        .isEqualTo(pausedRead + 1);
            } else {
                assertThat(wrote).startsWith("WROTE REFUSED_STALE");
                assertThat(successorWrite.read())
                        .as("the successor read what the refused client had read")
                        .isEqualTo(pausedRead);
            }
        }
        return new PauseRounds(committed, blocked);
    }

    /**
     * @param committed in how many rounds the paused client's late write committed (before the
     *     successor's transaction read the counter)
     * @param blocked in how many rounds the successor was seen waiting on the fence row; in the
     *     others the database had already ended the paused transaction for sitting idle past its lease
     */
    private record PauseRounds(int committed, int blocked) {}

    private record SuccessorWrite(long token, long read, FencedWrite write) {}

    /** The successor's whole section, on its own thread: its fenced transaction may block. */
    private static SuccessorWrite successorIncrement(LockClient successor, String lock, HistoryRecorder recorder)
            throws InterruptedException {
        try (Section next = Section.enter(successor.lock(lock), Acquisition.renewing(STEP), "successor", recorder)
                        .orElseThrow(() -> new AssertionError("no successor while the holder was paused"));
                FencedIncrement increment = next.beginFenced(db.get().entityManagerFactory(), lock)) {
            long read = increment.readValue();
            return new SuccessorWrite(next.lease().token(), read, next.commit(increment));
        }
    }

    /**
     * Waits until a session is blocked on the fence row in the database, or the successor has
     * finished: the database ends a fenced transaction that sits idle past its lease (see {@link
     * dev.fencedlock.jdbc.JdbcFencing#endedForIdling}), so the paused client may have lost its row
     * lock before the successor reached it. Fails if neither happens within {@link #STEP} (an upper
     * bound for a loaded machine; nothing is asserted about how long it took).
     *
     * @return whether a session was seen blocked on the fence row while the successor had not finished
     */
    private static boolean awaitBlockedOnFenceRow(Future<SuccessorWrite> next) throws Exception {
        long deadline = System.nanoTime() + STEP.toNanos();
        while (db.get().sessionsWaitingOnFenceRow() == 0) {
            if (next.isDone()) {
                return false;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("neither a session blocked on the fence row nor the successor done within "
                        + STEP + ": " + (next.isDone() ? outcome(next) : "successor still running"));
            }
            Thread.sleep(POLL.toMillis());
        }
        return true;
    }

    private static String outcome(Future<SuccessorWrite> next) throws InterruptedException {
        try {
            return String.valueOf(next.get());
        } catch (java.util.concurrent.ExecutionException e) {
            return String.valueOf(e.getCause());
        }
    }

    /** Pause point 2, {@code run.rounds()} times. */
    private void pauseBeforeGuard(
            Run run, String lock, ClientProcess client, LockClient successor, HistoryRecorder recorder)
            throws Exception {
        for (int round = 0; round < run.rounds(); round++) {
            client.send("ENTER " + lock + " " + lock);
            long pausedToken = Long.parseLong(client.expect("HOLDING", STEP).split(" ")[1]);
            client.expect("AT_GUARD", STEP);
            client.stop();
            FencedWrite successorWrite;
            try (Section next = Section.enter(successor.lock(lock), Acquisition.renewing(STEP), "successor", recorder)
                    .orElseThrow(() -> new AssertionError("no successor while the holder was paused"))) {
                assertThat(next.lease().token()).isGreaterThan(pausedToken);
                successorWrite = next.increment(db.get().entityManagerFactory(), lock);
            } finally {
                client.resume();
            }
            assertThat(successorWrite.outcome())
                    .as("the successor commits freely: the paused client holds no row")
                    .isEqualTo(WriteOutcome.OK);
            client.send("GO");
            assertThat(client.expect("WROTE", STEP))
                    .as("the paused client's fence guard refuses its stale token")
                    .isEqualTo("WROTE REFUSED_STALE NEWER_TOKEN_REGISTERED");
            assertThat(client.expect("DONE", STEP))
                    .as("the paused client was told of its loss")
                    .isEqualTo("DONE lost=true");
        }
    }

    private static CheckReport checked(Run run, String lock, History all, String pausePoint) {
        String scenario = "paused client, " + pausePoint + ", " + run.backend();
        CheckReport report =
                FaultRun.check(scenario, all.only(lock, lock), List.of(db.get().counterState(lock, 0)));
        assertThat(report.overlaps()).as("a successor during every pause").hasSize(run.rounds());
        FaultRun.assertNoOverlapWithoutLoss(scenario, report);
        if (run.boundedValidity()) {
            FaultRun.assertNoUnsafeOverlap(scenario, report);
        } else {
            assertThat(report.unsafeOverlapsWithoutLoss()).isEmpty();
        }
        return report;
    }
}
