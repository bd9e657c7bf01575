package dev.fencedlock.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.faults.db.FaultDatabase;
import dev.fencedlock.faults.history.CheckReport;
import dev.fencedlock.faults.history.HistoryRecorder;
import dev.fencedlock.faults.report.FaultMatrix;
import dev.fencedlock.faults.report.MatrixRow;
import dev.fencedlock.faults.workload.Acquisition;
import dev.fencedlock.faults.workload.CounterWorkers;
import dev.fencedlock.faults.workload.Section;
import dev.fencedlock.testkit.junit.PerClassResource;
import dev.fencedlock.testkit.zookeeper.ZooKeeperServers;
import dev.fencedlock.zookeeper.ZooKeeperLocks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.KillSession;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault 6: ZooKeeper loses a holder's session, restarts, or loses its leader while workers contend
 * for one lock. Each fault is injected while a worker is stopped inside its section, after its read:
 * that holder must be told of its loss ({@code onLost}), its write must be refused, no two holders
 * may overlap unless one of them was told of its loss, and acquisitions must go on afterwards.
 *
 * <p>Leases are 2 s with sessions of 3 s, so a lease's validity is bounded in time too (see {@link
 * PausedClientIT}); the workers use Curator clients of their own, so that the test can reach a
 * holder's ZooKeeper handle.
 */
class ZooKeeperFaultsIT {
    private static final Duration SESSION = Duration.ofSeconds(3);
    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration EVENT = Duration.ofSeconds(60);
    private static final int WORKERS = 3;
    private static final int SECTIONS_BETWEEN_FAULTS = 8;

    @RegisterExtension
    static final PerClassResource<FaultDatabase> db = PerClassResource.of(FaultDatabase::create);

    /** What a fault does to the ensemble, and how the ensemble is brought back. */
    private interface Fault {
        void inject(Section holder, Workers workers) throws Exception;

        void heal() throws Exception;
    }

    @Test
    void sessionExpiryWhileHolding() throws Exception {
        try (TestingServer server = ZooKeeperServers.start()) {
            int rounds = FaultRun.rounds(2);
            run(
                    server.getConnectString(),
                    rounds,
                    "6a-zk-session-expiry",
                    "a holder's session expires" + " (KillSession) while it holds, after its read",
                    new Fault() {
                        @Override
                        public void inject(Section holder, Workers workers) {
                            KillSession.kill(zooKeeper(workers.curators.get(holder.client())));
                        }

                        @Override
                        public void heal() {}
                    });
        }
    }

    @Test
    void serverRestartWhileHolding() throws Exception {
        try (TestingServer server = ZooKeeperServers.start()) {
            int rounds = FaultRun.rounds(2);
            run(
                    server.getConnectString(),
                    rounds,
                    "6b-zk-server-restart",
                    "the single ZooKeeper server stops while" + " a worker holds, then restarts",
                    new Fault() {
                        @Override
                        public void inject(Section holder, Workers workers) throws Exception {
                            server.stop();
                        }

                        @Override
                        public void heal() throws Exception {
                            server.restart();
                        }
                    });
        }
    }

    @Test
    void leaderKillInAThreeServerEnsemble() throws Exception {
        try (TestingCluster cluster = ZooKeeperServers.cluster(3)) {
            cluster.start();
            for (InstanceSpec spec : cluster.getInstances()) {
                awaitServing(spec);
            }
            int rounds = FaultRun.rounds(2);
            InstanceSpec[] killed = new InstanceSpec[1];
            run(
                    cluster.getConnectString(),
                    rounds,
                    "6c-zk-leader-kill",
                    "the leader of a 3-server ensemble is" + " killed while a worker holds, then restarted",
                    new Fault() {
                        @Override
                        public void inject(Section holder, Workers workers) throws Exception {
                            killed[0] = leader(cluster);
                            assertThat(cluster.killServer(killed[0])).isTrue();
                        }

                        @Override
                        public void heal() throws Exception {
                            cluster.restartServer(killed[0]);
                            for (InstanceSpec spec : cluster.getInstances()) {
                                awaitServing(spec);
                            }
                        }
                    });
        }
    }

    /** The workers' Curator clients by worker name, and their lock clients. */
    private record Workers(Map<String, CuratorFramework> curators, List<LockClient> clients) {}

    private void run(String connect, int rounds, String rowId, String description, Fault fault) throws Exception {
        String lock = "faults:" + rowId;
        db.get().createCounter(lock, 0);
        HistoryRecorder recorder = new HistoryRecorder();
        Workers workers = new Workers(new LinkedHashMap<>(), new ArrayList<>());
        List<CounterWorkers.Worker> contenders = new ArrayList<>();
        CounterWorkers run = null;
        int lossesHeard = 0;
        try {
            LockConfig config = ZooKeeperSetup.config(connect, SESSION, LEASE).build();
            for (int i = 0; i < WORKERS; i++) {
                CuratorFramework curator = CuratorFrameworkFactory.builder()
                        .connectString(connect)
                        .sessionTimeoutMs((int) SESSION.toMillis())
                        .connectionTimeoutMs((int) SESSION.toMillis() / 3)
                        .retryPolicy(new ExponentialBackoffRetry(100, 2, 1000))
                        .build();
                curator.start();
                String name = rowId + "-" + i;
                workers.curators.put(name, curator);
                LockClient client = ZooKeeperLocks.create(config, curator);
                workers.clients.add(client);
                contenders.add(new CounterWorkers.Worker(name, client.lock(lock)));
            }
            run = new CounterWorkers(
                    contenders,
                    Acquisition.renewing(Duration.ofSeconds(5)),
                    db.get().entityManagerFactory(),
                    lock,
                    recorder,
                    Duration.ofMillis(200));
            run.start();
            awaitProgress(run, "before the first fault");
            for (int round = 0; round < rounds; round++) {
                CounterWorkers.Hold hold = run.holdNext();
                Section holder = hold.await(EVENT);
                assertThat(holder).as("a worker holding the lock").isNotNull();
                fault.inject(holder, workers);
                assertThat(holder.awaitLoss(EVENT))
                        .as("the holder was told of its loss")
                        .isTrue();
                lossesHeard++;
                fault.heal();
                hold.release();
                run.phase(round + 1);
                awaitProgress(run, "after fault " + (round + 1));
            }
        } finally {
            if (run != null) {
                run.close();
            }
            workers.clients.forEach(LockClient::close);
            workers.curators.values().forEach(CuratorFramework::close);
        }
        assertThat(run.unexpected()).isEmpty();
        CheckReport report =
                FaultRun.check(rowId, recorder.snapshot(), List.of(db.get().counterState(lock, 0)));
        FaultRun.assertNoOverlapWithoutLoss(rowId, report);
        FaultRun.assertNoUnsafeOverlap(rowId, report);
        assertThat(report.writesRefused())
                .as("the write of every holder hit by a fault")
                .isGreaterThanOrEqualTo(rounds);
        FaultMatrix.record(MatrixRow.of(
                rowId,
                description,
                "zookeeper",
                rounds,
                report,
                "-",
                "onLost heard by " + lossesHeard + " of " + rounds + " holders hit; refusals " + report.refusalReasons()
                        + "; " + run.unavailable() + " attempts failed on the connection"));
    }

    private static void awaitProgress(CounterWorkers run, String when) throws InterruptedException {
        assertThat(run.awaitCompleted(SECTIONS_BETWEEN_FAULTS, Duration.ofMinutes(2)))
                .as(
                        "%d sections %s (timed out %d, unavailable %d, failures %s)",
                        SECTIONS_BETWEEN_FAULTS, when, run.notGranted(), run.unavailable(), run.unexpected())
                .isTrue();
    }

    private static org.apache.zookeeper.ZooKeeper zooKeeper(CuratorFramework curator) {
        try {
            return curator.getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            throw new IllegalStateException("no ZooKeeper handle", e);
        }
    }

    private static InstanceSpec leader(TestingCluster cluster) {
        return ZooKeeperServers.leader(cluster);
    }

    private static void awaitServing(InstanceSpec spec) throws InterruptedException {
        ZooKeeperServers.awaitServing(spec, EVENT);
    }
}
