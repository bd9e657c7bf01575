package dev.fencedlock.jpa.internal;

import dev.fencedlock.jdbc.FenceTable;
import org.hibernate.engine.jdbc.spi.JdbcCoordinator;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.resource.jdbc.spi.PhysicalConnectionHandlingMode;
import org.hibernate.resource.transaction.spi.DdlTransactionIsolator;
import org.hibernate.resource.transaction.spi.TransactionCoordinator;
import org.hibernate.resource.transaction.spi.TransactionCoordinatorBuilder;
import org.hibernate.resource.transaction.spi.TransactionCoordinatorOwner;
import org.hibernate.tool.schema.internal.exec.JdbcContext;

/**
 * The transaction coordinator builder Hibernate would use (resource-local or JTA, as configured),
 * with a {@link TransactionGuard} observing every coordinator it builds and its session's
 * statements ({@link SessionStatements}). This is the one place the
 * fence hooks into Hibernate's transactions; {@code HibernateHooksCanaryIT} fails if Hibernate
 * stops calling it. Immutable and thread-safe.
 */
final class GuardingTransactionCoordinatorBuilder implements TransactionCoordinatorBuilder {
    private final TransactionCoordinatorBuilder delegate;
    private final FenceTable table;

    GuardingTransactionCoordinatorBuilder(TransactionCoordinatorBuilder delegate, FenceTable table) {
        this.delegate = delegate;
        this.table = table;
    }

    @Override
    public TransactionCoordinator buildTransactionCoordinator(TransactionCoordinatorOwner owner, Options options) {
        TransactionCoordinator coordinator = delegate.buildTransactionCoordinator(owner, options);
        if (!(owner instanceof JdbcCoordinator jdbc)) {
            throw new IllegalStateException(
                    "fencing-jpa cannot run its fence guard: Hibernate's transaction owner is a "
                            + owner.getClass().getName() + ", not a JdbcCoordinator");
        }
        TransactionGuard observer = new TransactionGuard(coordinator, jdbc, table);
        coordinator.addObserver(observer);
        // Hibernate's own short-lived JDBC owners (reading database metadata at start-up) are no sessions
        if (jdbc.getJdbcSessionOwner() instanceof SharedSessionContractImplementor session) {
            session.getEventListenerManager().addListener(new SessionStatements(observer));
        }
        return coordinator;
    }

    @Override
    public boolean isJta() {
        return delegate.isJta();
    }

    @Override
    public PhysicalConnectionHandlingMode getDefaultConnectionHandlingMode() {
        return delegate.getDefaultConnectionHandlingMode();
    }

    @Override
    public DdlTransactionIsolator buildDdlTransactionIsolator(JdbcContext jdbcContext) {
        return delegate.buildDdlTransactionIsolator(jdbcContext);
    }
}
