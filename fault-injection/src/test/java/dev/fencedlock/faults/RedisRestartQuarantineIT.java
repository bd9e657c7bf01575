package dev.fencedlock.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.faults.db.FaultDatabase;
import dev.fencedlock.faults.db.FencedIncrement;
import dev.fencedlock.faults.history.CheckReport;
import dev.fencedlock.faults.history.FencedWrite;
import dev.fencedlock.faults.history.HistoryRecorder;
import dev.fencedlock.faults.history.WriteOutcome;
import dev.fencedlock.faults.report.FaultMatrix;
import dev.fencedlock.faults.report.MatrixRow;
import dev.fencedlock.faults.workload.Acquisition;
import dev.fencedlock.faults.workload.Section;
import dev.fencedlock.jdbc.FenceRowBusyException;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.testkit.await.Await;
import dev.fencedlock.testkit.junit.PerClassResource;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import dev.fencedlock.testkit.net.TcpProxy;
import dev.fencedlock.testkit.redis.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault 2: a node restarts empty while a lease is held on a bare majority. The holder reaches only
 * three of five nodes (its proxies to the other two refuse connections); one of the three is killed
 * and comes back empty. A second client that reaches all five nodes would find three free ones (the
 * restarted node and the two the holder never had) and be granted the lock while the holder's lease
 * is still valid. The restart quarantine must keep the restarted node out of its quorum.
 *
 * <p>The control runs the same rounds with a second client whose leases and quarantine are 100 ms
 * while the holder's lease is 3 s: each client is configured consistently by itself, but a
 * deployment that mixes lease times without one quarantine covering the longest lease lets a second
 * holder in while the first is valid. That shows the scenario is real and that the checker sees it;
 * the fence still keeps the counter right.
 */
class RedisRestartQuarantineIT {
    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final int ATTEMPTS_WHILE_HELD = 3;

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(5);

    @RegisterExtension
    static final PerClassResource<FaultDatabase> db = PerClassResource.of(FaultDatabase::create);

    @Test
    void theQuarantineKeepsARestartedNodeOutOfASecondHoldersQuorum() throws Exception {
        String lock = "faults:restart-quarantine";
        Outcome outcome = run(lock, FaultRun.rounds(4), null);
        String scenario = "restart empty under a bare-majority lease";
        CheckReport report = FaultRun.check(scenario, outcome.recorder.snapshot(), List.of(outcome.counter));
        FaultRun.assertNoUnsafeOverlap(scenario, report);
        assertThat(report.overlaps())
                .as("no second holder while the first held")
                .isEmpty();
        assertThat(outcome.refusedWhileHolderValid)
                .as("attempts refused while the holder's lease was still valid")
                .isEqualTo((long) ATTEMPTS_WHILE_HELD * outcome.rounds);
        FaultMatrix.record(MatrixRow.of(
                "2-restart-quarantine",
                "a node of a bare-majority lease restarts empty; a second client tries at once",
                "redlock",
                outcome.rounds,
                report,
                "-",
                outcome.refusedWhileHolderValid + " attempts refused while the holder was valid"));
    }

    @Test
    void aQuarantineShorterThanTheHoldersLeaseLetsASecondHolderInAndOnlyTheFenceSavesTheCounter() throws Exception {
        String lock = "faults:restart-short-quarantine";
        Duration shortLease = Duration.ofMillis(100);
        Outcome outcome = run(lock, FaultRun.rounds(2), shortLease);
        String scenario = "restart empty, second client's quarantine shorter than the lease (control)";
        CheckReport report = FaultRun.check(scenario, outcome.recorder.snapshot(), List.of(outcome.counter));
        assertThat(report.unsafeOverlaps())
                .as("a second holder while the first was valid, in every round")
                .hasSize(outcome.rounds);
        FaultMatrix.record(MatrixRow.of(
                "2c-restart-short-quarantine",
                "control for 2: the second client runs 100 ms leases with a 100 ms quarantine (holder: 3 s)",
                "redlock",
                outcome.rounds,
                report,
                "-",
                "a second holder while the first was valid in "
                        + report.unsafeOverlaps().size() + " of " + outcome.rounds + " rounds; refusals "
                        + report.refusalReasons()));
    }

    /**
     * Waits for the intruder's write to end. Its lease (100 ms in the control) bounds how long its
     * guard waits for the fence row the holder's open transaction holds: when the holder commits
     * later than that, the intruder gives up with {@link FenceRowBusyException} and wrote nothing,
     * which is an outcome of the scenario, not a failure of the test.
     */
    private static void awaitIntruder(CompletableFuture<FencedWrite> intruderWrite) throws Exception {
        try {
            intruderWrite.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
                if (t instanceof FenceRowBusyException) {
                    return;
                }
            }
            throw e;
        }
    }

    private record Outcome(
            int rounds,
            HistoryRecorder recorder,
            dev.fencedlock.faults.history.CounterState counter,
            long refusedWhileHolderValid) {}

    /**
     * Each round: the holder takes the lock on a random bare majority and reads the counter; one
     * node of that majority restarts empty; the other client makes {@value #ATTEMPTS_WHILE_HELD}
     * single attempts; the holder writes and leaves; the other client then acquires and writes.
     *
     * @param otherLease the other client's lease time and restart quarantine; null for the holder's
     *     lease time and the default quarantine (which is then the same)
     */
    private Outcome run(String lock, int rounds, Duration otherLease) throws Exception {
        RedisServers servers = redis.servers();
        db.get().createCounter(lock, 0);
        HistoryRecorder recorder = new HistoryRecorder();
        List<TcpProxy> holderView = RedisSetup.proxies(servers);
        Duration lease = otherLease == null ? LEASE : otherLease;
        var otherConfig = RedisSetup.config(servers.uris(), lease);
        if (otherLease != null) {
            otherConfig.set(RedlockSettings.RESTART_QUARANTINE, otherLease);
        }
        long refusedWhileValid = 0;
        try (LockClient holder = LockClient.create(
                        RedisSetup.config(RedisSetup.uris(holderView), LEASE).build());
                LockClient other = LockClient.create(otherConfig.build())) {
            for (int round = 0; round < rounds; round++) {
                servers.awaitUptime(LEASE);
                List<Integer> nodes =
                        new ArrayList<>(IntStream.range(0, 5).boxed().toList());
                Collections.shuffle(nodes);
                List<Integer> majority = nodes.subList(0, 3);
                for (int n = 0; n < 5; n++) {
                    if (majority.contains(n)) {
                        holderView.get(n).pass();
                    } else {
                        holderView.get(n).reset();
                    }
                }
                Section first = Section.enter(
                                holder.lock(lock), Acquisition.fixed(Duration.ofSeconds(10), LEASE), "holder", recorder)
                        .orElseThrow(() -> new AssertionError("the holder was not granted on " + majority));
                assertThat(heldOn(servers, lock))
                        .as("held on exactly the majority")
                        .isEqualTo(sorted(majority));
                FencedWrite firstWrite;
                CompletableFuture<FencedWrite> intruderWrite = null;
                try (first;
                        FencedIncrement increment = first.beginFenced(db.get().entityManagerFactory(), lock)) {
                    servers.get(majority.get(0)).restartEmpty();
                    for (int attempt = 0; attempt < ATTEMPTS_WHILE_HELD; attempt++) {
                        Optional<Section> second = attemptOnce(other, lock, lease, otherLease != null, recorder);
                        if (second.isPresent()) {
                            Section intruder = second.get();
                            // the fence row orders the two holders' transactions: the intruder's waits
                            // on the row the holder's open transaction holds, until the holder ends it
                            intruderWrite = CompletableFuture.supplyAsync(() -> {
                                try (intruder) {
                                    return intruder.increment(db.get().entityManagerFactory(), lock);
                                }
                            });
                            CompletableFuture<FencedWrite> waiting = intruderWrite;
                            Await.until(
                                    "the intruder's fenced transaction waits on the fence row",
                                    Duration.ofSeconds(60),
                                    () -> db.get().sessionsWaitingOnFenceRow() > 0 || waiting.isDone());
                            // a 100 ms lease bounds the intruder's wait for the row: under load it may
                            // have given up before it was seen waiting, and then it wrote nothing
                            if (waiting.isDone() && !waiting.isCompletedExceptionally()) {
                                assertThat(waiting.join().outcome())
                                        .as("the intruder cannot write while the holder's transaction is open")
                                        .isNotEqualTo(WriteOutcome.OK);
                            }
                            break;
                        }
                        if (first.checkValid()) {
                            refusedWhileValid++;
                        }
                    }
                    firstWrite = first.commit(increment);
                }
                if (intruderWrite != null) {
                    awaitIntruder(intruderWrite);
                }
                if (otherLease == null) {
                    assertThat(firstWrite.outcome()).isEqualTo(WriteOutcome.OK);
                }
                try (Section next = Section.enter(
                                other.lock(lock), Acquisition.fixed(Duration.ofSeconds(10), lease), "other", recorder)
                        .orElseThrow(() -> new AssertionError("no grant after the holder left"))) {
                    next.increment(db.get().entityManagerFactory(), lock);
                }
            }
        } finally {
            RedisSetup.closeAll(holderView);
        }
        return new Outcome(rounds, recorder, db.get().counterState(lock, 0), refusedWhileValid);
    }

    /**
     * One attempt, or, for the short-quarantine control, attempts for up to a second (until its
     * 100 ms quarantine of the restarted node has passed). No quorum of counting nodes (a {@link
     * LockUnavailableException}) is no grant either.
     */
    private static Optional<Section> attemptOnce(
            LockClient client, String lock, Duration lease, boolean keepTrying, HistoryRecorder recorder)
            throws InterruptedException {
        Duration wait = keepTrying ? Duration.ofSeconds(1) : Duration.ZERO;
        try {
            return Section.enter(client.lock(lock), Acquisition.fixed(wait, lease), "other", recorder);
        } catch (LockUnavailableException e) {
            return Optional.empty();
        }
    }

    private static List<Integer> heldOn(RedisServers servers, String lock) {
        List<Integer> held = new ArrayList<>();
        for (int n = 0; n < servers.size(); n++) {
            if (servers.get(n).command("GET", RedlockKeys.lockKey(lock)) != null) {
                held.add(n);
            }
        }
        return held;
    }

    private static List<Integer> sorted(List<Integer> nodes) {
        List<Integer> copy = new ArrayList<>(nodes);
        Collections.sort(copy);
        return copy;
    }
}
