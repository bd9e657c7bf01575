package dev.fencedlock.testkit.junit;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.IntFunction;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts the servers of a lock backend for a test class and hands out the settings that reach
 * them: Redis nodes for {@code redlock}, a ZooKeeper server for {@code zookeeper}. The servers run
 * in Docker containers through Testcontainers when a Docker engine answers and Testcontainers is
 * on the test classpath ({@code org.testcontainers:testcontainers}); otherwise as local {@code
 * redis-server} child processes (the executable found as {@link
 * dev.fencedlock.testkit.redis.RedisServerProcess} says) and an in-process ZooKeeper server.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final LockBackendExtension backend = LockBackendExtension.redlock(3);
 *
 * @Test
 * void onlyOneWorkerWritesAtATime() {
 *     try (LockClient client = backend.newClient()) { ... }
 * }
 * }</pre>
 *
 * <p>The system property {@value #CONTAINERS_PROPERTY} chooses: {@code auto} (the default, as
 * above), {@code always} (containers, or fail), {@code never} (local servers). Redis nodes are fresh,
 * and a fresh node counts toward a quorum only once its uptime passes the restart quarantine; so
 * the Redlock settings carry a short quarantine and lease time ({@value
 * BackendServers#REDLOCK_TEST_LEASE}) and the extension returns only once every node counts. A
 * fixed lease longer than the quarantine is refused by the client; raise both keys together.
 *
 * <p>Register it on a {@code static} field. The servers are shared by the class's tests; lock names
 * of their own keep tests apart. Thread-safe once started.
 */
public final class LockBackendExtension implements BeforeAllCallback, AfterAllCallback {
    /** The system property that chooses containers or local servers: auto, always or never. */
    public static final String CONTAINERS_PROPERTY = "fencedlock.test.containers";

    /** Where the servers run. */
    public enum Mode {
        CONTAINERS,
        LOCAL
    }

    private final int nodes;
    private final IntFunction<BackendServers> containers;
    private final IntFunction<BackendServers> local;
    private final PerClassResource<BackendServers> servers;
    private volatile Mode mode;

    private LockBackendExtension(int nodes, IntFunction<BackendServers> containers, IntFunction<BackendServers> local) {
        this.nodes = nodes;
        this.containers = containers;
        this.local = local;
        this.servers =
                PerClassResource.of(() -> (mode == Mode.CONTAINERS ? this.containers : this.local).apply(this.nodes));
    }

    /**
     * {@code nodes} independent Redis masters for the {@code redlock} backend.
     *
     * @throws IllegalArgumentException if {@code nodes} is below 1
     */
    public static LockBackendExtension redlock(int nodes) {
        if (nodes < 1) {
            throw new IllegalArgumentException("nodes must be at least 1, got " + nodes);
        }
        return new LockBackendExtension(nodes, ContainerBackendServers::redis, LocalBackendServers::redis);
    }

    /** One ZooKeeper server for the {@code zookeeper} backend. */
    public static LockBackendExtension zookeeper() {
        return new LockBackendExtension(
                1, n -> ContainerBackendServers.zookeeper(), n -> LocalBackendServers.zookeeper());
    }

    /**
     * Where the servers run.
     *
     * @throws IllegalStateException before the class's tests
     */
    public Mode mode() {
        servers.get();
        return mode;
    }

    /** The {@code fencedlock.*} settings that reach the servers, e.g. for a properties file or Spring. */
    public Map<String, String> properties() {
        return servers.get().properties();
    }

    /**
     * {@link #properties()} as a configuration.
     *
     * @throws IllegalArgumentException if the backend's provider ({@code redlock-provider}, {@code
     *     zookeeper-provider}) is not on the test classpath: the keys are the provider's
     */
    public LockConfig config() {
        Properties properties = new Properties();
        properties.putAll(properties());
        return LockConfig.fromProperties(properties);
    }

    /** A new client on the servers; the caller closes it. */
    public LockClient newClient() {
        return LockClient.create(config());
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        mode = choose(
                System.getProperty(CONTAINERS_PROPERTY, "auto"),
                DockerEngine.fromEnvironment(),
                testcontainersPresent());
        servers.beforeAll(context);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        servers.afterAll(context);
    }

    @Override
    public String toString() {
        return "LockBackendExtension[" + (mode == null ? "not started" : mode) + "]";
    }

    /**
     * The choice for a value of {@value #CONTAINERS_PROPERTY}.
     *
     * @throws IllegalArgumentException for a value other than auto, always or never
     * @throws IllegalStateException for {@code always} when containers cannot run, saying why
     */
    static Mode choose(String setting, DockerEngine engine, boolean testcontainersPresent) {
        switch (setting.trim().toLowerCase(Locale.ROOT)) {
            case "never":
                return Mode.LOCAL;
            case "auto":
                return testcontainersPresent && engine.answers() ? Mode.CONTAINERS : Mode.LOCAL;
            case "always":
                if (!testcontainersPresent) {
                    throw new IllegalStateException(CONTAINERS_PROPERTY
                            + "=always needs org.testcontainers:testcontainers on the test classpath");
                }
                if (!engine.answers()) {
                    throw new IllegalStateException(
                            CONTAINERS_PROPERTY + "=always, but no Docker engine answers at " + engine.endpoint());
                }
                return Mode.CONTAINERS;
            default:
                throw new IllegalArgumentException(
                        CONTAINERS_PROPERTY + " must be auto, always or never, got '" + setting + "'");
        }
    }

    static boolean testcontainersPresent() {
        try {
            Class.forName(
                    "org.testcontainers.containers.GenericContainer",
                    false,
                    LockBackendExtension.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
