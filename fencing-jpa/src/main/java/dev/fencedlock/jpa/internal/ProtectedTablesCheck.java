package dev.fencedlock.jpa.internal;

import dev.fencedlock.jdbc.FencedTables;
import dev.fencedlock.jpa.FencingSettings;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.hibernate.HibernateException;
import org.hibernate.SessionFactory;
import org.hibernate.SessionFactoryObserver;
import org.hibernate.engine.jdbc.connections.spi.JdbcConnectionAccess;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link FencingSettings#PROTECTED_TABLES} at the start of a session factory: registered by {@link
 * FencingIntegrator}, so it runs after Hibernate's own schema management (whose observer comes
 * first). With {@code warn}, a check that cannot run (no JDBC connection, as for a factory that
 * only writes schema scripts) is logged; with {@code require} or {@code protect} it fails the
 * start. Immutable and thread-safe.
 */
final class ProtectedTablesCheck implements SessionFactoryObserver {
    private static final Logger LOG = LoggerFactory.getLogger(ProtectedTablesCheck.class);

    /** The setting's values. */
    enum Mode {
        REQUIRE,
        WARN,
        PROTECT,
        OFF;

        /**
         * @throws HibernateException naming the setting and its values for anything else
         */
        static Mode of(Object setting) {
            if (setting == null) {
                return WARN;
            }
            String value = setting.toString().trim().toUpperCase(Locale.ROOT);
            for (Mode mode : values()) {
                if (mode.name().equals(value)) {
                    return mode;
                }
            }
            throw new HibernateException(FencingSettings.PROTECTED_TABLES
                    + " must be one of require, warn, protect, off; got '" + setting + "'");
        }
    }

    private final Mode mode;
    private final Set<String> tables;

    ProtectedTablesCheck(Mode mode, Set<String> tables) {
        this.mode = mode;
        this.tables = Set.copyOf(tables);
    }

    @Override
    public void sessionFactoryCreated(SessionFactory factory) {
        if (mode == Mode.OFF || tables.isEmpty()) {
            return;
        }
        JdbcConnectionAccess access =
                ((SessionFactoryImplementor) factory).getJdbcServices().getBootstrapJdbcConnectionAccess();
        try {
            Connection connection = access.obtainConnection();
            try {
                check(connection);
            } finally {
                access.releaseConnection(connection);
            }
        } catch (SQLException | RuntimeException e) {
            String failure = "Checking that the fenced tables " + tables + " are protected failed ("
                    + FencingSettings.PROTECTED_TABLES + "=" + mode.name().toLowerCase(Locale.ROOT) + "): " + e;
            if (mode == Mode.WARN) {
                LOG.warn(failure);
                return;
            }
            throw e instanceof HibernateException hibernate ? hibernate : new HibernateException(failure, e);
        }
    }

    private void check(Connection connection) throws SQLException {
        if (!FencedTables.isSupported(connection)) {
            LOG.info(
                    "{} ({}): the database cannot refuse writes outside a fenced transaction; fencing-jpa's own checks"
                            + " guard the fenced tables {}, writes by other clients are not refused",
                    FencingSettings.PROTECTED_TABLES,
                    connection.getMetaData().getDatabaseProductName(),
                    tables);
            return;
        }
        List<String> missing =
                FencedTables.unprotected(connection, tables.stream().sorted().toList());
        if (missing.isEmpty()) {
            return;
        }
        if (mode == Mode.PROTECT) {
            FencedTables.protect(connection, missing.toArray(String[]::new));
            LOG.info("Protected the fenced tables {} ({}=protect)", missing, FencingSettings.PROTECTED_TABLES);
            return;
        }
        String message = message(missing);
        if (mode == Mode.REQUIRE) {
            throw new HibernateException(message);
        }
        LOG.warn(message);
    }

    static String message(List<String> missing) {
        String calls = missing.stream()
                .map(table -> "call fencedlock_protect('" + table + "');")
                .collect(Collectors.joining(" "));
        String names = missing.stream().map(table -> '"' + table + '"').collect(Collectors.joining(", "));
        return "The fenced tables " + missing + " are not protected: the database accepts writes to them outside a"
                + " fenced transaction (other applications, ad-hoc SQL, native SQL fencing-jpa cannot read). Protect"
                + " them with a migration (" + calls
                + " on PostgreSQL, the same with FENCEDLOCK_PROTECT on H2) or, on any of them and MariaDB/MySQL,"
                + " FencedTables.protect(dataSource, " + names + "); or set the Hibernate setting "
                + FencingSettings.PROTECTED_TABLES + " (with the Spring Boot starter, fencedlock.protected-tables in"
                + " application properties) to protect (a schema Hibernate creates), warn or off";
    }
}
