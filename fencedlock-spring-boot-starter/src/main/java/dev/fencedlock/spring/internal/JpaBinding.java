package dev.fencedlock.spring.internal;

import dev.fencedlock.Lease;
import dev.fencedlock.jdbc.FenceGuard;
import dev.fencedlock.jpa.Fencing;
import dev.fencedlock.jpa.FencingScope;
import dev.fencedlock.jpa.internal.FencedTransactions;
import java.sql.Connection;
import java.sql.SQLException;
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
     * Whether fencing-jpa's guard holds {@code guard}'s fence row for {@code lease} in the
     * transaction just begun on {@code connection}; a guard of it deferred to the first statement
     * runs now ({@link FencedTransactions#holdsFenceRow}).
     */
    static boolean holdsFenceRow(Connection connection, FenceGuard guard, Lease lease) throws SQLException {
        return FencedTransactions.holdsFenceRow(connection, guard, lease);
    }

    /** Whether {@code lease} is the innermost lease bound for fencing-jpa on this thread. */
    static boolean isInnermost(Lease lease) {
        return Fencing.currentLease().filter(bound -> bound == lease).isPresent();
    }
}
