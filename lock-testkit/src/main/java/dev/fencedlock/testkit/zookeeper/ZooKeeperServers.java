package dev.fencedlock.testkit.zookeeper;

import dev.fencedlock.testkit.await.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.client.FourLetterWordMain;
import org.apache.zookeeper.util.ServiceUtils;

/**
 * In-process ZooKeeper servers (Curator's {@link TestingServer} and {@link TestingCluster}) set up
 * for lock tests, and their status as the servers report it.
 *
 * <p>Every server gets a free port, a temporary directory deleted on close, a tick of {@value
 * #TICK_MS} ms so that session timeouts can be as short as 2 ticks (400 ms), a maximum session
 * timeout of 60 s, and no fsync: lock tests exercise the protocol, not the disk. Stateless and
 * thread-safe.
 *
 * <p>Loading this class turns ZooKeeper's own {@code System.exit} requests (a server that cannot
 * bind its election port after a restart, a follower that sees an out-of-order commit) into log
 * lines: in-process servers share the test JVM, and a server giving up must fail its test, not end
 * the whole test run.
 */
public final class ZooKeeperServers {
    static {
        ServiceUtils.setSystemExitProcedure(ServiceUtils.LOG_ONLY);
    }

    /** The servers' tick; the shortest session timeout they grant is two ticks. */
    public static final int TICK_MS = 200;

    private static final Map<String, Object> SERVER_PROPERTIES =
            Map.of("maxSessionTimeout", "60000", "forceSync", "no");

    private ZooKeeperServers() {}

    /** The settings of one server: free ports, temporary directory, the tick and properties above. */
    public static InstanceSpec spec() {
        return new InstanceSpec(null, -1, -1, -1, true, -1, TICK_MS, -1, SERVER_PROPERTIES, null);
    }

    /**
     * Starts one standalone server and returns once it accepts connections; close it after the test.
     *
     * @throws IllegalStateException if it does not start
     */
    public static TestingServer start() {
        try {
            return new TestingServer(spec(), true);
        } catch (Exception e) {
            throw new IllegalStateException("cannot start an in-process ZooKeeper server: " + e, e);
        }
    }

    /**
     * An ensemble of {@code servers} servers, not yet started: call {@link TestingCluster#start()},
     * then {@link #awaitServing} for each instance, since {@code start()} returns before the servers
     * have elected a leader.
     *
     * @throws IllegalArgumentException if {@code servers} is below 1
     */
    public static TestingCluster cluster(int servers) {
        if (servers < 1) {
            throw new IllegalArgumentException("servers must be at least 1, got " + servers);
        }
        List<InstanceSpec> specs = new ArrayList<>();
        for (int i = 0; i < servers; i++) {
            specs.add(spec());
        }
        return new TestingCluster(specs);
    }

    /** The server's {@code srvr} report (with its {@code Mode:} line), or why it could not be read. */
    public static String status(InstanceSpec server) {
        return status(server.getHostname(), server.getPort());
    }

    /** The {@code srvr} report of the server at {@code host:port}, or why it could not be read. */
    public static String status(String host, int port) {
        try {
            return FourLetterWordMain.send4LetterWord(host, port, "srvr");
        } catch (Exception e) {
            return "not serving: " + e;
        }
    }

    /** Whether the server serves clients, as leader, follower or standalone. */
    public static boolean isServing(InstanceSpec server) {
        return serves(status(server));
    }

    private static boolean serves(String status) {
        return status.contains("Mode: leader")
                || status.contains("Mode: follower")
                || status.contains("Mode: standalone");
    }

    /**
     * The server that reports itself leader now.
     *
     * @throws AssertionError if none does (an election is under way, or the quorum is lost)
     */
    public static InstanceSpec leader(TestingCluster cluster) {
        return currentLeader(cluster)
                .orElseThrow(() ->
                        new AssertionError("no server of " + cluster.getConnectString() + " reports itself leader"));
    }

    /**
     * Waits until a server reports itself leader, e.g. after the last one was killed, and returns it.
     *
     * @throws AssertionError if none does within {@code timeout}
     */
    public static InstanceSpec awaitLeader(TestingCluster cluster, Duration timeout) throws InterruptedException {
        return Await.value(
                        "a leader in " + cluster.getConnectString(),
                        timeout,
                        () -> currentLeader(cluster),
                        Optional::isPresent)
                .orElseThrow();
    }

    private static Optional<InstanceSpec> currentLeader(TestingCluster cluster) {
        return cluster.getInstances().stream()
                .filter(server -> status(server).contains("Mode: leader"))
                .findFirst();
    }

    /**
     * Waits until the server serves clients. Polls its status: ZooKeeper sends no event for the end
     * of an election.
     *
     * @throws AssertionError if it does not within {@code timeout}; the message carries its last status
     */
    public static void awaitServing(InstanceSpec server, Duration timeout) throws InterruptedException {
        Await.value(
                server.getHostname() + ":" + server.getPort() + " serving clients",
                timeout,
                () -> status(server),
                ZooKeeperServers::serves);
    }
}
