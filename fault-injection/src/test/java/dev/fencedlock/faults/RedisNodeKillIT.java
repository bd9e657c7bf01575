package dev.fencedlock.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.LockClient;
import dev.fencedlock.faults.db.FaultDatabase;
import dev.fencedlock.faults.history.CheckReport;
import dev.fencedlock.faults.history.HistoryRecorder;
import dev.fencedlock.faults.report.FaultMatrix;
import dev.fencedlock.faults.report.MatrixRow;
import dev.fencedlock.faults.workload.Acquisition;
import dev.fencedlock.faults.workload.CounterWorkers;
import dev.fencedlock.testkit.junit.PerClassResource;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import dev.fencedlock.testkit.redis.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault 1: Redis nodes die with SIGKILL while workers contend for one lock. Each round kills two of
 * five nodes, brings them back empty (so they sit out the restart quarantine), then kills the other
 * two. Mutual exclusion must hold throughout and acquisitions must go on in every phase.
 */
class RedisNodeKillIT {
    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final int WORKERS = 4;
    private static final int SECTIONS_PER_PHASE = 15;
    private static final Duration PHASE_TIMEOUT = Duration.ofSeconds(90);

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(5);

    @RegisterExtension
    static final PerClassResource<FaultDatabase> db = PerClassResource.of(FaultDatabase::create);

    @Test
    void killingAMinorityMidRunKeepsHoldersApartAndAcquisitionsGoing() throws Exception {
        RedisServers servers = redis.servers();
        String lock = "faults:kill-minority";
        db.get().createCounter(lock, 0);
        HistoryRecorder recorder = new HistoryRecorder();
        List<LockClient> clients = new ArrayList<>();
        List<CounterWorkers.Worker> workers = new ArrayList<>();
        int rounds = FaultRun.rounds(2);
        CounterWorkers run;
        try {
            for (int i = 0; i < WORKERS; i++) {
                LockClient client = LockClient.create(
                        RedisSetup.config(servers.uris(), LEASE).build());
                clients.add(client);
                workers.add(new CounterWorkers.Worker("kill-" + i, client.lock(lock)));
            }
            run = new CounterWorkers(
                    workers,
                    Acquisition.renewing(Duration.ofSeconds(1)),
                    db.get().entityManagerFactory(),
                    lock,
                    recorder,
                    Duration.ofMillis(200));
            try (run) {
                run.start();
                int phase = 0;
                awaitProgress(run, "all nodes up");
                for (int round = 0; round < rounds; round++) {
                    List<Integer> nodes =
                            new ArrayList<>(IntStream.range(0, 5).boxed().toList());
                    Collections.shuffle(nodes);
                    List<Integer> first = nodes.subList(0, 2);
                    List<Integer> second = nodes.subList(2, 4);

                    first.forEach(n -> servers.get(n).kill());
                    run.phase(++phase);
                    awaitProgress(run, "nodes " + first + " killed");
                    first.forEach(n -> servers.get(n).restartEmpty());
                    run.phase(++phase);
                    awaitProgress(run, "nodes " + first + " back empty");
                    second.forEach(n -> servers.get(n).kill());
                    run.phase(++phase);
                    awaitProgress(run, "nodes " + second + " killed");
                    second.forEach(n -> servers.get(n).restartEmpty());
                    run.phase(++phase);
                    awaitProgress(run, "nodes " + second + " back empty");
                }
            }
        } finally {
            clients.forEach(LockClient::close);
        }

        assertThat(run.unexpected()).as("unexpected worker failures").isEmpty();
        String scenario = "kill -9 a minority";
        CheckReport report =
                FaultRun.check(scenario, recorder.snapshot(), List.of(db.get().counterState(lock, 0)));
        FaultRun.assertNoUnsafeOverlap(scenario, report);
        FaultRun.assertNoOverlapWithoutLoss(scenario, report);
        FaultMatrix.record(MatrixRow.of(
                "1-kill-minority",
                "kill -9 2 of 5 Redis nodes mid-run; restart them empty; kill the other 2",
                "redlock",
                2L * rounds,
                report,
                "-",
                SECTIONS_PER_PHASE + "+ sections completed in each of " + (4 * rounds + 1) + " phases; "
                        + run.notGranted() + " attempts timed out, " + run.unavailable() + " found no quorum"));
    }

    private static void awaitProgress(CounterWorkers run, String phase) throws InterruptedException {
        assertThat(run.awaitCompleted(SECTIONS_PER_PHASE, PHASE_TIMEOUT))
                .as(
                        "%d sections completed within %s with %s (timed out %d, unavailable %d, failures %s)",
                        SECTIONS_PER_PHASE, PHASE_TIMEOUT, phase, run.notGranted(), run.unavailable(), run.unexpected())
                .isTrue();
    }
}
