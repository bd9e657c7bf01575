/**
 * The {@code jdbc} backend: locks in a table of the application's own database. Users reach it
 * through {@code fencedlock.backend=jdbc} or {@link dev.fencedlock.jdbcprovider.JdbcLocks}. The
 * PostgreSQL driver is optional: with it, waiters are woken by {@code NOTIFY}.
 */
module dev.fencedlock.jdbcprovider {
    requires transitive dev.fencedlock;
    requires transitive java.sql;
    requires static org.postgresql.jdbc;
    requires org.slf4j;

    exports dev.fencedlock.jdbcprovider;

    provides dev.fencedlock.spi.LockProviderFactory with
            dev.fencedlock.jdbcprovider.internal.JdbcProviderFactory;
}
