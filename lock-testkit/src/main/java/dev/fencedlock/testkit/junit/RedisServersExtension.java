package dev.fencedlock.testkit.junit;

import dev.fencedlock.testkit.redis.RedisServerProcess;
import dev.fencedlock.testkit.redis.RedisServers;
import java.util.function.Consumer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Starts N {@code redis-server} processes before a test class and kills them after it, failed tests
 * included. Before each test it {@link RedisServers#heal() heals} the nodes (resumes paused ones,
 * restarts dead ones, flushes all keys), so a test that injected a fault does not leak it into the
 * next one.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisServersExtension redis = RedisServersExtension.nodes(5);
 * ... redis.servers().nodes() ...
 * }</pre>
 *
 * <p>Register it on a {@code static} field: JUnit calls the class-level callbacks only there.
 */
public final class RedisServersExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback {
    private final PerClassResource<RedisServers> servers;

    private RedisServersExtension(int count, Consumer<RedisServerProcess.Builder> options) {
        this.servers = PerClassResource.of(() -> RedisServers.start(count, options));
    }

    /** {@code count} servers with default options. */
    public static RedisServersExtension nodes(int count) {
        return new RedisServersExtension(count, options -> {});
    }

    /** {@code count} servers, each configured by {@code options}. */
    public static RedisServersExtension nodes(int count, Consumer<RedisServerProcess.Builder> options) {
        return new RedisServersExtension(count, options);
    }

    /**
     * The running servers.
     *
     * @throws IllegalStateException outside the class's tests
     */
    public RedisServers servers() {
        return servers.get();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        servers.beforeAll(context);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        servers().heal();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        servers.afterAll(context);
    }
}
