package dev.fencedlock.spring.internal;

import dev.fencedlock.Lease;
import dev.fencedlock.jdbc.FenceTable;
import dev.fencedlock.jdbc.internal.FencedTransaction;
import dev.fencedlock.jpa.Fencing;
import dev.fencedlock.jpa.FencingScope;
import dev.fencedlock.jpa.internal.JpaFence;
import java.sql.Connection;
import java.util.Optional;
import org.springframework.util.ClassUtils;

/**
 * Binds a lease for fencing-jpa's entity stamping for as long as a locked call runs, so that the
 * flush at commit still finds it (binding inside the transactional method closes too early).
 * Loaded only when fencing-jpa is on the classpath.
 */
final class JpaBinding {
    static final boolean PRESENT =
            ClassUtils.isPresent("dev.fencedlock.jpa.Fencing", JpaBinding.class.getClassLoader());

    private JpaBinding() {}

    static FencingScope bind(Lease lease) {
        return Fencing.bind(lease);
    }

    /**
     * The fenced transaction fencing-jpa began for {@code lease} in {@code table} on {@code
     * connection} ({@link JpaFence#fenceOf}), empty if none.
     */
    static Optional<FencedTransaction> fenceOf(Connection connection, FenceTable table, Lease lease) {
        return JpaFence.fenceOf(connection, table, lease);
    }

    /** Whether {@code lease} is the innermost lease bound for fencing-jpa on this thread. */
    static boolean isInnermost(Lease lease) {
        return Fencing.currentLease().filter(bound -> bound == lease).isPresent();
    }
}
