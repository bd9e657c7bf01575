package dev.fencedlock.spring.internal;

import dev.fencedlock.BackendStatus;
import dev.fencedlock.LockClient;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of the {@link LockClient}'s backends, from {@link LockClient#status()}: no lock is taken.
 *
 * <ul>
 *   <li>UP when a backend can grant leases ({@link BackendStatus.State#canGrant()}): a quorum of
 *       Redis masters counts, ZooKeeper is connected, the jdbc database answers a query on its lock
 *       table, or the backend does not report its state.
 *       With {@code fencedlock.fallback}, a fallback that can grant keeps the client UP while the
 *       primary is DOWN, as acquisitions then go to the fallback; while the client waits out the
 *       other backend's leases (the default takeover), {@link LockClient#status()} reports the
 *       withheld backend DOWN, so the client is DOWN until a backend may grant again;
 *   <li>DOWN otherwise: for example a Redis Cluster with a master whose slots no other master
 *       serves (a dead master with no replica promoted yet), whose locks cannot be granted, or a
 *       jdbc database that cannot be reached or lacks its lock table. DOWN rather than
 *       OUT_OF_SERVICE, which Spring keeps for a component taken out of service on purpose: here
 *       the backend failed, and the application's locked work fails or waits until it returns.
 * </ul>
 *
 * <p>Details: one entry per backend under its name, with its {@code state} and its {@code nodes}
 * (address with credentials masked, to state and detail). Thread-safe.
 */
final class FencedLockHealthIndicator extends AbstractHealthIndicator {
    private final LockClient client;

    FencedLockHealthIndicator(LockClient client) {
        super("fencedlock health check failed");
        this.client = client;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        List<BackendStatus> backends = client.status();
        boolean canGrant = false;
        for (BackendStatus backend : backends) {
            canGrant |= backend.state().canGrant();
            builder.withDetail(backend.backend(), details(backend));
        }
        if (canGrant) {
            builder.up();
        } else {
            builder.down();
        }
    }

    /** State before nodes and a node's state before its detail, so the endpoint's JSON reads in a stable order. */
    private static Map<String, Object> details(BackendStatus backend) {
        Map<String, Object> nodes = new LinkedHashMap<>();
        for (BackendStatus.Node node : backend.nodes()) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("state", node.state().name());
            if (!node.detail().isEmpty()) {
                entry.put("detail", node.detail());
            }
            nodes.put(node.address(), entry);
        }
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("state", backend.state().name());
        details.put("nodes", nodes);
        return details;
    }
}
