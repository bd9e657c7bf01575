package dev.fencedlock.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockException;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.faults.db.FaultDatabase;
import dev.fencedlock.faults.history.CheckReport;
import dev.fencedlock.faults.history.HistoryRecorder;
import dev.fencedlock.faults.report.FaultMatrix;
import dev.fencedlock.faults.report.MatrixRow;
import dev.fencedlock.faults.workload.Acquisition;
import dev.fencedlock.faults.workload.CounterWorkers;
import dev.fencedlock.faults.workload.Section;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.testkit.junit.PerClassResource;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import dev.fencedlock.testkit.net.TcpProxy;
import dev.fencedlock.testkit.redis.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault 5: slow and partitioned nodes, made with a TCP proxy between each client and each node. A
 * partitioned minority must cost an attempt no more than about one node timeout, two when the
 * attempt fails (its partial grants are released on every node, and the partitioned ones are waited
 * for again); replies that come back after the lease must never make a grant; partitions that come
 * and go under contention must not let two holders overlap.
 */
class SlowNodeIT {
    /**
     * Slack for a loaded two-core machine on top of the bounds the algorithm promises. The bounds
     * matter because without them a partitioned node would stall an attempt forever.
     */
    private static final Duration SCHEDULING_SLACK = Duration.ofSeconds(2);

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(5);

    @RegisterExtension
    static final PerClassResource<FaultDatabase> db = PerClassResource.of(FaultDatabase::create);

    @Test
    void aPartitionedMinorityCostsAnAttemptAboutOneNodeTimeout() throws Exception {
        RedisServers servers = redis.servers();
        String lock = "faults:partitioned-minority";
        db.get().createCounter(lock, 0);
        HistoryRecorder recorder = new HistoryRecorder();
        List<TcpProxy> proxies = RedisSetup.proxies(servers);
        Duration lease = Duration.ofSeconds(2);
        int rounds = FaultRun.rounds(5);
        servers.awaitUptime(lease);
        long slowest = 0;
        int granted = 0;
        try (LockClient client = LockClient.create(
                RedisSetup.config(RedisSetup.uris(proxies), lease).build())) {
            for (int round = 0; round < rounds; round++) {
                List<Integer> nodes =
                        new ArrayList<>(IntStream.range(0, 5).boxed().toList());
                Collections.shuffle(nodes);
                nodes.subList(0, 2).forEach(n -> proxies.get(n).blackhole());
                for (int attempt = 0; attempt < 3; attempt++) {
                    long start = System.nanoTime();
                    Optional<Section> section =
                            Section.enter(client.lock(lock), Acquisition.fixed(Duration.ZERO, lease), "c", recorder);
                    long elapsed = System.nanoTime() - start;
                    slowest = Math.max(slowest, elapsed);
                    assertThat(Duration.ofNanos(elapsed))
                            .as("one attempt with nodes %s partitioned", nodes.subList(0, 2))
                            .isLessThan(RedisSetup.NODE_TIMEOUT.multipliedBy(2).plus(SCHEDULING_SLACK));
                    if (section.isPresent()) {
                        granted++;
                        try (Section held = section.get()) {
                            held.increment(db.get().entityManagerFactory(), lock);
                        }
                    }
                }
                proxies.forEach(TcpProxy::pass);
            }
            proxies.forEach(TcpProxy::blackhole);
            long start = System.nanoTime();
            assertThatThrownBy(() -> client.lock(lock).tryAcquire(Duration.ofSeconds(1), lease))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("0 of 5 nodes answered");
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("a wait of 1 s with every node partitioned")
                    .isLessThan(Duration.ofSeconds(1)
                            .plus(RedisSetup.NODE_TIMEOUT.multipliedBy(2))
                            .plus(SCHEDULING_SLACK));
        } finally {
            RedisSetup.closeAll(proxies);
        }
        assertThat(granted).as("attempts granted with three healthy nodes").isPositive();
        CheckReport report = FaultRun.check(
                "partitioned minority", recorder.snapshot(), List.of(db.get().counterState(lock, 0)));
        FaultMatrix.record(MatrixRow.of(
                "5a-partitioned-minority",
                "2 of 5 nodes partitioned (bytes held), single attempts",
                "redlock",
                rounds,
                report,
                "-",
                granted + " of " + 3 * rounds + " attempts granted; slowest attempt " + slowest / 1_000_000
                        + " ms (node timeout " + RedisSetup.NODE_TIMEOUT.toMillis() + " ms; a failed attempt also"
                        + " waits for its release)"));
    }

    @Test
    void repliesDelayedPastTheLeaseNeverYieldAGrant() throws Exception {
        RedisServers servers = redis.servers();
        String lock = "faults:late-replies";
        db.get().createCounter(lock, 0);
        HistoryRecorder recorder = new HistoryRecorder();
        List<TcpProxy> proxies = RedisSetup.proxies(servers);
        Duration lease = Duration.ofMillis(800);
        int rounds = FaultRun.rounds(1);
        servers.awaitUptime(lease);
        int grants = 0;
        int refusals = 0;
        // a node timeout far above every delay, so the late replies are read and judged
        try (LockClient client = LockClient.create(RedisSetup.config(RedisSetup.uris(proxies), lease)
                .set(RedlockSettings.NODE_TIMEOUT, Duration.ofSeconds(10))
                .build())) {
            for (int round = 0; round < rounds; round++) {
                for (double factor : new double[] {0.1, 0.5, 1.5, 3.0}) {
                    Duration delay = Duration.ofMillis((long) (lease.toMillis() * factor));
                    proxies.forEach(p -> p.delayReplies(delay));
                    // well below the lease a grant must come, if not at the first attempt then soon
                    Acquisition how = factor < 0.25
                            ? Acquisition.fixed(Duration.ofSeconds(20), lease)
                            : Acquisition.fixed(Duration.ZERO, lease);
                    if (factor >= 1) {
                        // won on every node, but no validity left: a fault of the link, not a holder,
                        // so an error that says so rather than the empty result that means "taken"
                        assertThatThrownBy(() -> Section.enter(client.lock(lock), how, "c", recorder))
                                .as("a grant from replies delayed %s, past the %s lease", delay, lease)
                                .isInstanceOf(LockException.class)
                                .hasMessageContaining("ran out before the grant could be handed out");
                        refusals++;
                        proxies.forEach(TcpProxy::pass);
                        continue;
                    }
                    Optional<Section> section = Section.enter(client.lock(lock), how, "c", recorder);
                    if (factor < 0.25) {
                        assertThat(section)
                                .as("a grant with replies delayed %s", delay)
                                .isPresent();
                    }
                    if (section.isPresent()) {
                        grants++;
                        try (Section held = section.get()) {
                            long remainingMillis = held.lease().remaining().toMillis();
                            assertThat(remainingMillis)
                                    .as("validity left after replies delayed %s", delay)
                                    .isLessThanOrEqualTo(lease.minus(delay).toMillis());
                            assertThat(nodesOutlasting(servers, held.lease()))
                                    .as("nodes whose key outlives the client's validity")
                                    .isGreaterThanOrEqualTo(3);
                            proxies.forEach(TcpProxy::pass);
                            held.increment(db.get().entityManagerFactory(), lock);
                        }
                    }
                    proxies.forEach(TcpProxy::pass);
                }
            }
        } finally {
            RedisSetup.closeAll(proxies);
        }
        CheckReport report = FaultRun.check(
                "late replies", recorder.snapshot(), List.of(db.get().counterState(lock, 0)));
        FaultMatrix.record(MatrixRow.of(
                "5b-late-replies",
                "every node's replies delayed by 0.1, 0.5, 1.5 and 3 times the 800 ms lease",
                "redlock",
                rounds,
                report,
                "-",
                grants + " grants, all with validity below lease - delay and within the nodes' PTTL; " + refusals
                        + " attempts with replies later than the lease, none granted"));
    }

    @Test
    void partitionsThatComeAndGoUnderContentionNeverLetTwoHoldersOverlap() throws Exception {
        RedisServers servers = redis.servers();
        String lock = "faults:flapping";
        db.get().createCounter(lock, 0);
        HistoryRecorder recorder = new HistoryRecorder();
        // sections dwell up to 1.5 s on a 1 s lease: they live on renewals, which the partitions break
        Duration lease = Duration.ofSeconds(1);
        List<List<TcpProxy>> views = new ArrayList<>();
        List<LockClient> clients = new ArrayList<>();
        List<CounterWorkers.Worker> workers = new ArrayList<>();
        AtomicBoolean chaos = new AtomicBoolean(true);
        AtomicLong switches = new AtomicLong();
        int sections = FaultRun.rounds(16);
        CounterWorkers run = null;
        Thread monkey = null;
        try {
            for (int i = 0; i < 3; i++) {
                List<TcpProxy> view = RedisSetup.proxies(servers);
                views.add(view);
                LockClient client = LockClient.create(
                        RedisSetup.config(RedisSetup.uris(view), lease).build());
                clients.add(client);
                workers.add(new CounterWorkers.Worker("flap-" + i, client.lock(lock)));
            }
            run = new CounterWorkers(
                    workers,
                    Acquisition.renewing(Duration.ofSeconds(2)),
                    db.get().entityManagerFactory(),
                    lock,
                    recorder,
                    Duration.ofMillis(1500));
            monkey = new Thread(() -> switchModes(views, chaos, switches), "partition-monkey");
            monkey.setDaemon(true);
            run.start();
            monkey.start();
            assertThat(run.awaitCompleted(sections, Duration.ofMinutes(2)))
                    .as(
                            "%d sections under flapping partitions (unavailable %d, failures %s)",
                            sections, run.unavailable(), run.unexpected())
                    .isTrue();
            chaos.set(false);
            monkey.join();
            views.forEach(view -> view.forEach(TcpProxy::pass));
            run.phase(1);
            assertThat(run.awaitCompleted(10, Duration.ofMinutes(1)))
                    .as("sections after the network healed")
                    .isTrue();
        } finally {
            chaos.set(false);
            if (run != null) {
                run.close();
            }
            clients.forEach(LockClient::close);
            views.forEach(RedisSetup::closeAll);
        }
        assertThat(run.unexpected()).isEmpty();
        String scenario = "flapping partitions";
        CheckReport report =
                FaultRun.check(scenario, recorder.snapshot(), List.of(db.get().counterState(lock, 0)));
        FaultRun.assertNoUnsafeOverlap(scenario, report);
        FaultRun.assertNoOverlapWithoutLoss(scenario, report);
        FaultMatrix.record(MatrixRow.of(
                "5c-flapping-partitions",
                "3 contending clients, each client-node link switched at random between pass, delay (0-1.5 s),"
                        + " partition and reset",
                "redlock",
                switches.get(),
                report,
                "-",
                "rounds = link switches; " + run.unavailable() + " attempts found no quorum; refusals "
                        + report.refusalReasons()));
    }

    /**
     * The fault schedule: every 50 to 250 ms one client's link to one node changes, to a partition
     * or a reset a third of the time each, to replies delayed up to 1.5 s (beyond the lease) a
     * sixth of the time, else back to normal. Sleeps set the pace; they synchronise nothing.
     */
    private static void switchModes(List<List<TcpProxy>> views, AtomicBoolean running, AtomicLong switches) {
        Random random = new Random();
        while (running.get()) {
            TcpProxy proxy = views.get(random.nextInt(views.size())).get(random.nextInt(5));
            switch (random.nextInt(6)) {
                case 0, 1 -> proxy.pass();
                case 2 -> proxy.delayReplies(Duration.ofMillis(random.nextInt(1500)));
                case 3, 4 -> proxy.blackhole();
                default -> proxy.reset();
            }
            switches.incrementAndGet();
            try {
                Thread.sleep(50 + random.nextInt(200));
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * How many nodes hold the lock key for at least as long as the client believes its lease valid.
     * Each node's PTTL is read first and the lease's remaining validity after the reply, so the
     * comparison is never unfair to the node: remaining validity only shrinks meanwhile.
     */
    private static int nodesOutlasting(RedisServers servers, Lease lease) {
        int holding = 0;
        for (int n = 0; n < servers.size(); n++) {
            Object ttl = servers.get(n).command("PTTL", RedlockKeys.lockKey(lease.lockName()));
            long remaining = lease.remaining().toMillis();
            if (ttl instanceof Long pttl && pttl >= remaining - 1) {
                holding++;
            }
        }
        return holding;
    }
}
