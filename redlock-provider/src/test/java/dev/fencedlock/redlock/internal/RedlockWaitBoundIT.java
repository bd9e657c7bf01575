package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.FencedLock;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockException;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.spi.MonotonicClock;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import dev.fencedlock.testkit.net.TcpProxy;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import dev.fencedlock.testkit.redis.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The wait contract of the redlock backend: an acquisition returns or throws
 * within its wait plus one node timeout ({@code fencedlock.redlock.node-timeout}, default 50 ms),
 * whatever every node does: silent (connections open, no byte moves: a {@link TcpProxy} black
 * hole), refusing (the server stopped) or answering later than the node timeout. With the default
 * node timeout, on one node and on three, for {@code tryAcquire(ZERO)} and {@code acquire(500 ms)}.
 * The assertion allows a loaded machine {@value #MARGIN_MILLIS} ms on top of the contract; the
 * measured times are printed as a table.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedlockWaitBoundIT {
    private static final Duration NODE_TIMEOUT = Duration.ofMillis(50);
    private static final long MARGIN_MILLIS = 400;
    private static final Map<String, Long> MEASURED = new ConcurrentSkipListMap<>();

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(3);

    enum Fault {
        SILENT,
        REFUSED,
        DELAYED
    }

    @ParameterizedTest(name = "{0} node(s), {1}")
    @CsvSource({"1, SILENT", "1, REFUSED", "1, DELAYED", "3, SILENT", "3, REFUSED", "3, DELAYED"})
    void everyAcquisitionReturnsWithinItsWaitPlusOneNodeTimeout(int nodes, Fault fault) throws Exception {
        faultAndMeasure(nodes, fault, NODE_TIMEOUT);
    }

    /**
     * A failed attempt's cleanup does not wait on the nodes that had not answered the attempt, so a
     * silent node costs one node timeout, not two. With a node timeout longer than the margin, a
     * second one would show: 600 ms, one attempt.
     */
    @ParameterizedTest(name = "{0} node(s), {1}, node timeout 600 ms")
    @CsvSource({"3, SILENT", "3, DELAYED"})
    void aNodeThatDoesNotAnswerCostsAnAttemptOneNodeTimeoutNotTwo(int nodes, Fault fault) throws Exception {
        faultAndMeasure(nodes, fault, Duration.ofMillis(600));
    }

    private static void faultAndMeasure(int nodes, Fault fault, Duration nodeTimeout) throws Exception {
        RedisServers servers = redis.servers();
        List<TcpProxy> proxies = new ArrayList<>();
        List<String> uris = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            RedisServerProcess server = servers.get(i);
            TcpProxy proxy = TcpProxy.start(server.host(), server.port());
            proxies.add(proxy);
            uris.add("redis://" + server.host() + ":" + proxy.port());
        }
        LockConfig config = LockConfig.builder()
                .backend("redlock")
                .set(RedlockSettings.NODES, uris)
                .set(RedlockSettings.RESTART_QUARANTINE, Duration.ZERO)
                .set(RedlockSettings.NODE_TIMEOUT, nodeTimeout)
                .build();
        try (TestClient client = TestClient.create(config, MonotonicClock.SYSTEM, RedlockProvider.Options.DEFAULT)) {
            FencedLock lock = client.lock("wait-bound:" + nodes + ":" + fault);
            lock.tryAcquire(Duration.ofSeconds(2))
                    .orElseThrow(() -> new AssertionError("not granted before the fault"))
                    .close();
            for (int i = 0; i < nodes; i++) {
                switch (fault) {
                    case SILENT -> proxies.get(i).blackhole();
                    case REFUSED -> {
                        servers.get(i).stop();
                        proxies.get(i).reset();
                    }
                    case DELAYED -> proxies.get(i).delayReplies(nodeTimeout.multipliedBy(4));
                }
            }
            String what = nodes + " node(s), " + fault + ", node timeout " + nodeTimeout.toMillis() + " ms, ";
            measure(what + "tryAcquire(0)", Duration.ZERO, nodeTimeout, () -> lock.tryAcquire(Duration.ZERO));
            measure(
                    what + "acquire(500ms)",
                    Duration.ofMillis(500),
                    nodeTimeout,
                    () -> lock.acquire(Duration.ofMillis(500)));
        } finally {
            proxies.forEach(TcpProxy::close); // stopped servers come back with the extension's heal()
        }
    }

    private interface Call {
        Object run() throws InterruptedException;
    }

    private static void measure(String what, Duration wait, Duration nodeTimeout, Call call)
            throws InterruptedException {
        long worst = 0;
        for (int run = 0; run < 3; run++) {
            long start = System.nanoTime();
            try {
                Object result = call.run();
                throw new AssertionError(what + " returned " + result + " with every node failing");
            } catch (LockException e) {
                // unavailable: what a failing quorum must say
            }
            worst = Math.max(worst, (System.nanoTime() - start) / 1_000_000);
        }
        MEASURED.put(what, worst);
        assertThat(worst)
                .as(what + ": worst of 3, against wait + node timeout + a loaded machine's " + MARGIN_MILLIS + " ms")
                .isLessThanOrEqualTo(wait.toMillis() + nodeTimeout.toMillis() + MARGIN_MILLIS);
    }

    @AfterAll
    static void printTable() {
        System.out.println("| redlock case | worst of 3 (ms) |");
        MEASURED.forEach((what, millis) -> System.out.println("| " + what + " | " + millis + " |"));
    }
}
