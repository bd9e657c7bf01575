package dev.fencedlock.jpa.internal;

import dev.fencedlock.jdbc.internal.FencedTransaction;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import org.hibernate.dialect.Dialect;
import org.hibernate.engine.jdbc.connections.spi.ConnectionProvider;
import org.hibernate.engine.jdbc.connections.spi.DatabaseConnectionInfo;
import org.hibernate.engine.jdbc.env.spi.ExtractedDatabaseMetaData;
import org.hibernate.service.spi.Configurable;
import org.hibernate.service.spi.ServiceRegistryAwareService;
import org.hibernate.service.spi.ServiceRegistryImplementor;
import org.hibernate.service.spi.Startable;
import org.hibernate.service.spi.Stoppable;

/**
 * The connection provider Hibernate would use (a {@code DataSource}, its own pools, a provider the
 * application names), handing out connections that can carry the fence guard with a transaction's
 * first statement and commit through the fenced transaction ({@link FencedTransaction#guardable})
 * where that saves round trips ({@link FencedTransaction#isGuardable}: PostgreSQL through pgjdbc,
 * MariaDB through Connector/J), and the connections as they are elsewhere, where the guard stays a
 * statement of its own at begin. The first connection
 * decides, once: one provider, one database. Connections given back reach the wrapped provider as
 * it handed them out. Hibernate configures, starts and stops the service it was given, this one:
 * those calls, and {@code unwrap}, go to the wrapped provider. Thread-safe if the wrapped provider
 * is.
 */
final class GuardingConnectionProvider
        implements ConnectionProvider, Configurable, ServiceRegistryAwareService, Startable, Stoppable {
    private static final long serialVersionUID = 1L;

    private final ConnectionProvider delegate;
    /** Whether connections are wrapped; null until the first connection was looked at. */
    private volatile Boolean guardable;

    GuardingConnectionProvider(ConnectionProvider delegate) {
        this.delegate = delegate;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return guardable(delegate.getConnection());
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        return guardable(delegate.getConnection(user, password));
    }

    @Override
    public Connection getReadOnlyConnection() throws SQLException {
        return guardable(delegate.getReadOnlyConnection());
    }

    private Connection guardable(Connection connection) throws SQLException {
        Boolean wrap = guardable;
        if (wrap == null) {
            try {
                wrap = FencedTransaction.isGuardable(connection.getMetaData());
            } catch (SQLException | RuntimeException e) {
                delegate.closeConnection(connection);
                throw e;
            }
            guardable = wrap;
        }
        return wrap ? FencedTransaction.guardable(connection) : connection;
    }

    @Override
    public void closeConnection(Connection connection) throws SQLException {
        delegate.closeConnection(FencedTransaction.unguarded(connection));
    }

    @Override
    public void closeReadOnlyConnection(Connection connection) throws SQLException {
        delegate.closeReadOnlyConnection(FencedTransaction.unguarded(connection));
    }

    @Override
    public boolean supportsAggressiveRelease() {
        return delegate.supportsAggressiveRelease();
    }

    @Override
    public boolean handlesConnectionSchema() {
        return delegate.handlesConnectionSchema();
    }

    @Override
    public boolean handlesConnectionReadOnly() {
        return delegate.handlesConnectionReadOnly();
    }

    @Override
    public DatabaseConnectionInfo getDatabaseConnectionInfo(Dialect dialect) {
        return delegate.getDatabaseConnectionInfo(dialect);
    }

    @Override
    public DatabaseConnectionInfo getDatabaseConnectionInfo(Dialect dialect, ExtractedDatabaseMetaData metaData) {
        return delegate.getDatabaseConnectionInfo(dialect, metaData);
    }

    @Override
    public boolean isUnwrappableAs(Class<?> unwrapType) {
        return unwrapType.isInstance(this) || delegate.isUnwrappableAs(unwrapType);
    }

    @Override
    public <T> T unwrap(Class<T> unwrapType) {
        return unwrapType.isInstance(this) ? unwrapType.cast(this) : delegate.unwrap(unwrapType);
    }

    @Override
    public void configure(Map<String, Object> configurationValues) {
        if (delegate instanceof Configurable configurable) {
            configurable.configure(configurationValues);
        }
    }

    @Override
    public void injectServices(ServiceRegistryImplementor serviceRegistry) {
        if (delegate instanceof ServiceRegistryAwareService aware) {
            aware.injectServices(serviceRegistry);
        }
    }

    @Override
    public void start() {
        if (delegate instanceof Startable startable) {
            startable.start();
        }
    }

    @Override
    public void stop() {
        if (delegate instanceof Stoppable stoppable) {
            stoppable.stop();
        }
    }

    @Override
    public String toString() {
        return "fence-guarding " + delegate;
    }
}
