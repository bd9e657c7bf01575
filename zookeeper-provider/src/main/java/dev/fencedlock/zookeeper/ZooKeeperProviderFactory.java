package dev.fencedlock.zookeeper;

import dev.fencedlock.LockConfig;
import dev.fencedlock.spi.BackendSettings;
import dev.fencedlock.spi.LeaseRuntime;
import dev.fencedlock.spi.LockProvider;
import dev.fencedlock.spi.LockProviderFactory;
import java.time.Duration;
import java.util.Set;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * The {@code zookeeper} backend, found by {@link java.util.ServiceLoader}. It builds and owns a
 * {@link CuratorFramework} from the configuration; {@link ZooKeeperLocks} builds clients from typed
 * settings, also on a Curator client the application already has.
 *
 * <p>The owned client uses:
 *
 * <ul>
 *   <li>the session timeout {@code fencedlock.zookeeper.session-timeout} ({@link ZooKeeperSettings}, default 15s; the server
 *       may clamp it to its own minimum and maximum);
 *   <li>a connection timeout of a third of the session timeout, at most 5s, and an exponential
 *       backoff retry policy (100 ms base, 2 retries, at most 1 s between tries), for Curator's own
 *       operations (the background deletion of a lock node whose release failed). Acquisitions,
 *       lease checks and releases do not use them: an acquisition ends within its wait plus one
 *       {@code fencedlock.zookeeper.operation-timeout} (default 1 s), as {@link
 *       dev.fencedlock.LockUnavailableException} when no server answers in time.
 * </ul>
 *
 * <p>The client is started without waiting for a connection: an unreachable ensemble shows up as
 * {@link dev.fencedlock.LockUnavailableException} from the first acquisition, not as a failure to
 * create the {@link dev.fencedlock.LockClient}. Thread-safe.
 */
public final class ZooKeeperProviderFactory implements LockProviderFactory {
    private static final Duration MAX_CONNECTION_TIMEOUT = Duration.ofSeconds(5);
    private static final int RETRY_BASE_SLEEP_MS = 100;
    private static final int RETRY_MAX_RETRIES = 2;
    private static final int RETRY_MAX_SLEEP_MS = 1000;

    @Override
    public String backend() {
        return ZooKeeperLocks.BACKEND;
    }

    @Override
    public Set<String> keys() {
        return ZooKeeperSettings.KEYS;
    }

    /** Parses every value with {@link ZooKeeperSettings#from}. */
    @Override
    public void validate(BackendSettings settings) {
        ZooKeeperSettings.from(settings);
    }

    /**
     * @throws IllegalArgumentException if {@code fencedlock.zookeeper.connect} is missing, or any
     *     value is rejected by {@link ZooKeeperSettings.Builder#build()}
     */
    @Override
    public LockProvider create(LockConfig config, LeaseRuntime runtime) {
        return provider(
                ZooKeeperSettings.builder(config.settings(ZooKeeperLocks.BACKEND))
                        .build(),
                runtime);
    }

    /**
     * A provider on the application's Curator client of {@code settings}, or on one it builds and
     * owns from their connect string.
     */
    static LockProvider provider(ZooKeeperSettings settings, LeaseRuntime runtime) {
        if (settings.curator().isPresent()) {
            return new ZooKeeperLockProvider(settings.curator().get(), false, settings, runtime);
        }
        CuratorFramework curator = curatorBuilder(settings.connect().orElseThrow(), (int)
                        settings.sessionTimeout().toMillis())
                .build();
        curator.start();
        try {
            return new ZooKeeperLockProvider(curator, true, settings, runtime);
        } catch (RuntimeException e) {
            curator.close();
            throw e;
        }
    }

    /** A Curator client set up as this factory sets up the clients it owns (see the class doc). */
    static CuratorFrameworkFactory.Builder curatorBuilder(String connect, int sessionTimeoutMs) {
        return CuratorFrameworkFactory.builder()
                .connectString(connect)
                .sessionTimeoutMs(sessionTimeoutMs)
                .connectionTimeoutMs(connectionTimeoutMillis(sessionTimeoutMs))
                .retryPolicy(new ExponentialBackoffRetry(RETRY_BASE_SLEEP_MS, RETRY_MAX_RETRIES, RETRY_MAX_SLEEP_MS));
    }

    static int connectionTimeoutMillis(int sessionTimeoutMs) {
        return (int) Math.max(1, Math.min(sessionTimeoutMs / 3, MAX_CONNECTION_TIMEOUT.toMillis()));
    }
}
