package dev.fencedlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.testkit.net.TcpProxy;
import dev.fencedlock.zookeeper.ZooKeeperTestSupport.TestClient;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The wait contract under a misbehaving server: every acquisition returns or throws within its
 * wait plus one operation timeout ({@code fencedlock.zookeeper.operation-timeout}, 1 s by
 * default), whatever the server does, with a session timeout (20 s) long enough that neither the
 * ZooKeeper client (which gives a silent connection up after two thirds of it) nor Curator's
 * connection timeout could end the wait in time. Each fault is made by a {@link TcpProxy} between
 * the client and a real server; the measured times are printed.
 *
 * <p>The bound asserted is the documented one plus {@link #MARGIN} for a loaded machine. A create
 * given up at the deadline and applied by the server later must not leave a lock node that holds
 * the lock for nobody: once the server answers again, another client gets the lock while the first
 * client's session lives on.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WaitBoundIT {
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration OPERATION_TIMEOUT = ZooKeeperSettings.DEFAULT_OPERATION_TIMEOUT;
    private static final Duration MARGIN = Duration.ofSeconds(1);

    private static TestingServer server;
    private static CuratorFramework observer;

    private TcpProxy proxy;
    private TestClient client;
    private TestClient other;
    private String lockName;

    /** How the server misbehaves. */
    enum Fault {
        /** TCP open, nothing answered (and nothing delivered) until the fault ends. */
        SILENT(TcpProxy::blackhole),
        /** Connections closed and refused, as a stopped server's host does. */
        REFUSED(TcpProxy::reset),
        /** Every request applied at once, its reply delivered one operation timeout and a second late. */
        DELAYED_REPLIES(proxy -> proxy.delayReplies(OPERATION_TIMEOUT.plusSeconds(1)));

        private final Consumer<TcpProxy> apply;

        Fault(Consumer<TcpProxy> apply) {
            this.apply = apply;
        }
    }

    @BeforeAll
    static void startServer() throws Exception {
        server = ZooKeeperTestSupport.startServer();
        observer = ZooKeeperTestSupport.observer(server.getConnectString());
    }

    @AfterAll
    static void stopServer() throws Exception {
        observer.close();
        server.close();
    }

    @BeforeEach
    void connect(TestInfo test) throws Exception {
        proxy = TcpProxy.start("127.0.0.1", server.getPort());
        LockConfig config = ZooKeeperTestSupport.config("127.0.0.1:" + proxy.port(), SESSION_TIMEOUT);
        client = ZooKeeperTestSupport.client(config);
        client.awaitConnected();
        other = ZooKeeperTestSupport.client(ZooKeeperTestSupport.config(server.getConnectString(), SESSION_TIMEOUT));
        other.awaitConnected();
        lockName = "wait-bound:" + test.getTestMethod().orElseThrow().getName() + ":"
                + test.getDisplayName().replaceAll("[^A-Za-z0-9]+", "-");
        // The token node exists and the client knows it: the attempt under the fault is a create.
        client.lock(lockName).acquire(Duration.ofSeconds(10)).close();
    }

    @AfterEach
    void close() {
        proxy.pass();
        client.close();
        other.close();
        proxy.close();
    }

    @ParameterizedTest
    @EnumSource(Fault.class)
    void tryAcquireZeroEndsWithinOneOperationTimeout(Fault fault) throws Exception {
        assertBounded(
                fault,
                "tryAcquire(ZERO)",
                Duration.ZERO,
                () -> client.lock(lockName).tryAcquire(Duration.ZERO));
    }

    @ParameterizedTest
    @EnumSource(Fault.class)
    void acquireEndsWithinItsWaitAndOneOperationTimeout(Fault fault) throws Exception {
        Duration wait = Duration.ofMillis(500);
        assertBounded(
                fault,
                "acquire(500ms)",
                wait,
                () -> Optional.of(client.lock(lockName).acquire(wait)));
    }

    /**
     * An acquisition that waits long on a silent server still answers an interrupt at once: the
     * thread is not stuck inside a request.
     */
    @Test
    void anInterruptEndsAnAcquisitionOnASilentServer() throws Exception {
        proxy.blackhole();
        CompletableFuture<Thread> acquiring = new CompletableFuture<>();
        CompletableFuture<Throwable> outcome = CompletableFuture.supplyAsync(() -> {
            acquiring.complete(Thread.currentThread());
            try {
                client.lock(lockName).acquire(Duration.ofSeconds(30));
                return null;
            } catch (Throwable e) {
                return e;
            }
        });
        Thread thread = acquiring.get(10, TimeUnit.SECONDS);
        Thread.sleep(300);
        long start = System.nanoTime();
        thread.interrupt();
        Throwable thrown = outcome.get(10, TimeUnit.SECONDS);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.printf("zookeeper interrupt on a silent server: ended %d ms after the interrupt%n", millis);
        assertThat(thrown).isInstanceOf(InterruptedException.class);
        assertThat(millis).isLessThan(MARGIN.toMillis());
        proxy.pass();
        assertNoNodeHoldsTheLockForNobody();
    }

    /**
     * The create reaches the server and is applied, its answer is held back past the operation
     * timeout, and then the connection drops, so the client cannot tell whether it was applied. Its
     * session survives the reconnection, and with it the node: the client searches the lock's
     * children for the create's protected id and deletes what it finds, so another client gets the
     * lock although the first client's session lives on.
     */
    @Test
    void aCreateWhoseAnswerIsLostWithTheConnectionLeavesNoNode() throws Exception {
        long sessionBefore = client.sessionId();
        proxy.delayReplies(Duration.ofSeconds(30));
        assertThatThrownBy(() -> client.lock(lockName).tryAcquire(Duration.ZERO))
                .isInstanceOf(LockUnavailableException.class);
        ZooKeeperTestSupport.awaitChildren(
                observer, client.lock(lockName).lockPath(), children -> children.size() == 1);
        proxy.reset();
        proxy.pass();
        client.awaitConnected();
        assertThat(client.sessionId()).as("the session survived").isEqualTo(sessionBefore);
        assertNoNodeHoldsTheLockForNobody();
        assertThat(client.provider().abandonedCreates().size()).isZero();
    }

    private void assertBounded(Fault fault, String call, Duration wait, Attempt attempt) throws Exception {
        long sessionBefore = client.sessionId();
        fault.apply.accept(proxy);
        long start = System.nanoTime();
        Throwable thrown = null;
        Optional<Lease> granted = Optional.empty();
        try {
            granted = attempt.run();
        } catch (Exception e) {
            thrown = e;
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        Duration bound = wait.plus(OPERATION_TIMEOUT);
        System.out.printf(
                "zookeeper %s %s: %d ms (bound %d ms + margin %d ms): %s%n",
                fault,
                call,
                elapsed.toMillis(),
                bound.toMillis(),
                MARGIN.toMillis(),
                thrown == null ? "granted=" + granted.isPresent() : thrown.toString());
        assertThat(granted).as("no grant from a server that does not answer").isEmpty();
        assertThat(thrown)
                .as("a server that does not answer is a fault, not a taken lock")
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining(lockName);
        assertThat(elapsed).isLessThanOrEqualTo(bound.plus(MARGIN));

        proxy.pass();
        if (fault != Fault.REFUSED) {
            assertThat(client.sessionId())
                    .as("the client kept its session, so an orphan lock node would live on")
                    .isEqualTo(sessionBefore);
        }
        assertNoNodeHoldsTheLockForNobody();
    }

    /**
     * Once the server answers again, another client gets the lock within a few seconds while the
     * first client's session lives: no node of a given-up create holds it for nobody.
     */
    private void assertNoNodeHoldsTheLockForNobody() throws Exception {
        client.awaitConnected();
        try (Lease next = other.lock(lockName).acquire(Duration.ofSeconds(10))) {
            assertThat(next.isValid()).isTrue();
        }
        ZooKeeperTestSupport.awaitChildren(observer, client.lock(lockName).lockPath(), children -> children.isEmpty());
    }

    @FunctionalInterface
    private interface Attempt {
        Optional<Lease> run() throws Exception;
    }
}
