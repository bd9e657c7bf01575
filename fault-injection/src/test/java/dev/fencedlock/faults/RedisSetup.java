package dev.fencedlock.faults;

import dev.fencedlock.LockConfig;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.testkit.net.TcpProxy;
import dev.fencedlock.testkit.redis.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Redlock clients for the scenarios, directly on the nodes or each through proxies of its own. */
final class RedisSetup {
    /**
     * Generous for this loaded machine: a healthy node that answers late counts as failed, which
     * only costs availability, but the scenarios want failures to be the injected ones.
     */
    static final Duration NODE_TIMEOUT = Duration.ofMillis(500);

    private RedisSetup() {}

    /** A redlock configuration on {@code uris}: 500 ms node timeout, 50 ms retry delay. */
    static LockConfig.Builder config(List<String> uris, Duration leaseTime) {
        return LockConfig.builder()
                .backend("redlock")
                .set(RedlockSettings.NODES, uris)
                .set(RedlockSettings.NODE_TIMEOUT, NODE_TIMEOUT)
                .set(RedlockSettings.RETRY_DELAY, Duration.ofMillis(50))
                .leaseTime(leaseTime);
    }

    /** One proxy per node of {@code servers}, in node order, all passing traffic. */
    static List<TcpProxy> proxies(RedisServers servers) {
        List<TcpProxy> proxies = new ArrayList<>();
        for (int i = 0; i < servers.size(); i++) {
            proxies.add(TcpProxy.start(servers.get(i).host(), servers.get(i).port()));
        }
        return proxies;
    }

    /** The node URIs that go through {@code proxies}. */
    static List<String> uris(List<TcpProxy> proxies) {
        return proxies.stream().map(p -> "redis://127.0.0.1:" + p.port()).toList();
    }

    static void closeAll(List<TcpProxy> proxies) {
        proxies.forEach(TcpProxy::close);
    }
}
