package dev.fencedlock.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.faults.history.CheckReport;
import dev.fencedlock.faults.history.FencedWrite;
import dev.fencedlock.faults.history.History;
import dev.fencedlock.faults.history.HistoryRecorder;
import dev.fencedlock.faults.history.WriteOutcome;
import dev.fencedlock.faults.process.ClientProcess;
import dev.fencedlock.faults.report.FaultMatrix;
import dev.fencedlock.faults.report.MatrixRow;
import dev.fencedlock.faults.workload.Acquisition;
import dev.fencedlock.faults.workload.Section;
import dev.fencedlock.testkit.redis.RedisServersExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault 3: a client process is paused past its lease. The client runs in a JVM of its own and is
 * stopped with SIGSTOP right after it has read the counter under the lock: its renewals and (on
 * ZooKeeper) its heartbeats stop with it, which a paused thread would not achieve. A second client
 * must then be granted the lock (the lease ran out, or the server expired the session) and writes.
 * When the paused client is continued it writes its stale increment, which the fence must refuse:
 * zero lost updates, and the paused client must hear of its loss.
 */
class PausedClientIT {
    private static final Duration STARTUP = Duration.ofSeconds(90);
    private static final Duration STEP = Duration.ofSeconds(60);

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(3);

    @RegisterExtension
    static final FaultDatabaseExtension db = new FaultDatabaseExtension();

    @Test
    void redlockAPausedHolderIsSucceededAndItsLateWriteRefused() throws Exception {
        Duration lease = Duration.ofSeconds(2);
        LockConfig config = RedisSetup.config(redis.servers().uris(), lease).build();
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put(LockConfig.BACKEND, "redlock");
        settings.put(LockConfig.REDLOCK_NODES, redis.servers().nodes());
        settings.put(LockConfig.LEASE_TIME, "2s");
        settings.put(LockConfig.REDLOCK_NODE_TIMEOUT, RedisSetup.NODE_TIMEOUT.toMillis() + "ms");
        settings.put(LockConfig.REDLOCK_RETRY_DELAY, "50ms");
        pauseRounds("redlock", config, settings, "3-pause-redlock", FaultRun.rounds(3), true);
    }

    /**
     * With the lease time below the session timeout, a renewal that confirmed the lock node at t
     * makes the lease valid until t + lease time, before the server can expire the session (which
     * it does no earlier than session timeout after it last heard from the client, at or after t).
     * So the paused client cannot believe itself valid once its successor is granted.
     */
    @Test
    void zookeeperWithALeaseShorterThanTheSessionTheLateWriteIsRefusedAtTheClient() throws Exception {
        zookeeperRounds(Duration.ofSeconds(2), "3-pause-zookeeper", FaultRun.rounds(3), true);
    }

    /**
     * With a lease time longer than the session timeout, validity rests on connection events, and a
     * stopped process hears none: when it is continued it may still believe it holds the lock for a
     * moment, until Curator reports the expired session. The fence in the database refuses its write.
     */
    @Test
    void zookeeperWithALeaseLongerThanTheSessionTheLateWriteIsRefusedByTheDatabase() throws Exception {
        zookeeperRounds(Duration.ofSeconds(30), "3-pause-zookeeper-long-lease", FaultRun.rounds(2), false);
    }

    private void zookeeperRounds(Duration lease, String rowId, int rounds, boolean boundedValidity) throws Exception {
        try (TestingServer server = ZooKeeperSetup.server()) {
            Duration session = Duration.ofSeconds(3);
            LockConfig config = ZooKeeperSetup.config(server.getConnectString(), session, lease)
                    .build();
            Map<String, String> settings = new LinkedHashMap<>();
            settings.put(LockConfig.BACKEND, "zookeeper");
            settings.put(LockConfig.ZOOKEEPER_CONNECT, server.getConnectString());
            settings.put(LockConfig.ZOOKEEPER_SESSION_TIMEOUT, session.toMillis() + "ms");
            settings.put(LockConfig.LEASE_TIME, lease.toMillis() + "ms");
            pauseRounds("zookeeper", config, settings, rowId, rounds, boundedValidity);
        }
    }

    /**
     * @param boundedValidity whether the lease's validity is bounded in time (Redlock; ZooKeeper with
     *     a lease shorter than the session), so that the paused client cannot have believed itself
     *     valid after the successor was granted
     */
    private void pauseRounds(
            String backend,
            LockConfig config,
            Map<String, String> settings,
            String rowId,
            int rounds,
            boolean boundedValidity)
            throws Exception {
        String lock = "faults:" + rowId;
        db.get().createCounter(lock, 0);
        HistoryRecorder recorder = new HistoryRecorder();
        History paused;
        try (LockClient successor = LockClient.create(config);
                ClientProcess client = ClientProcess.start(
                        rowId,
                        Path.of("target", "client-processes"),
                        db.get().settings(),
                        settings,
                        Duration.ofSeconds(30),
                        Duration.ofSeconds(30),
                        STARTUP)) {
            for (int round = 0; round < rounds; round++) {
                client.send("ROUND " + lock + " " + lock);
                long pausedToken = Long.parseLong(client.expect("HOLDING", STEP).split(" ")[1]);
                client.stop();
                FencedWrite successorWrite;
                try (Section next = Section.enter(
                                successor.lock(lock), Acquisition.renewing(STEP), "successor", recorder)
                        .orElseThrow(() -> new AssertionError("no successor while the holder was paused"))) {
                    assertThat(next.lease().token()).isGreaterThan(pausedToken);
                    successorWrite = next.increment(db.get().entityManagerFactory(), lock);
                } finally {
                    client.resume();
                }
                assertThat(successorWrite.outcome()).isEqualTo(WriteOutcome.OK);
                client.send("WRITE");
                assertThat(client.expect("WROTE", STEP)).startsWith("WROTE REFUSED_STALE");
                assertThat(client.expect("DONE", STEP))
                        .as("the paused client was told of its loss")
                        .isEqualTo("DONE lost=true");
            }
            paused = client.finish(STEP);
        }

        String scenario = "paused client, " + backend;
        CheckReport report = FaultRun.check(
                scenario,
                History.merge(paused, recorder.snapshot()),
                List.of(db.get().counterState(lock, 0)));
        assertThat(report.overlaps()).as("a successor during every pause").hasSize(rounds);
        FaultRun.assertNoOverlapWithoutLoss(scenario, report);
        if (boundedValidity) {
            FaultRun.assertNoUnsafeOverlap(scenario, report);
        } else {
            assertThat(report.unsafeOverlapsWithoutLoss()).isEmpty();
        }
        assertThat(report.writesRefused()).isEqualTo(rounds);
        FaultMatrix.record(MatrixRow.of(
                rowId,
                "client JVM stopped (SIGSTOP) after its read, past its lease ("
                        + config.leaseTime().toSeconds() + " s" + (backend.equals("zookeeper") ? ", session 3 s" : "")
                        + "); continued after the successor wrote",
                backend,
                rounds,
                report,
                "-",
                "refusals " + report.refusalReasons()));
    }
}
