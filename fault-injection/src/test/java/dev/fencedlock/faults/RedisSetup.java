package dev.fencedlock.faults;

import dev.fencedlock.LockConfig;
import dev.fencedlock.faults.proxy.TcpProxy;
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
                .redlockNodes(uris)
                .redlockNodeTimeout(NODE_TIMEOUT)
                .redlockRetryDelay(Duration.ofMillis(50))
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

    /**
     * Waits until every node has been up for longer than {@code quarantine}, so that a client that
     * has never seen the nodes counts them at once (it judges a node it does not know by its uptime,
     * which Redis reports in whole seconds, rounded down: hence the extra second). Sleeping is the
     * point here: the quarantine is a span of time.
     */
    static void awaitUptime(RedisServers servers, Duration quarantine) throws InterruptedException {
        long needed = quarantine.toSeconds() + 2;
        long missing = 0;
        for (int n = 0; n < servers.size(); n++) {
            String info = (String) servers.get(n).command("INFO", "server");
            long uptime = info.lines()
                    .filter(line -> line.startsWith("uptime_in_seconds:"))
                    .mapToLong(line -> Long.parseLong(
                            line.substring("uptime_in_seconds:".length()).trim()))
                    .findFirst()
                    .orElseThrow();
            missing = Math.max(missing, needed - uptime);
        }
        if (missing > 0) {
            Thread.sleep(Duration.ofSeconds(missing).toMillis());
        }
    }

    static void closeAll(List<TcpProxy> proxies) {
        proxies.forEach(TcpProxy::close);
    }
}
