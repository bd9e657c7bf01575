package dev.fencedlock.spring.internal;

import dev.fencedlock.spring.FencedLockStartupException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.util.ClassUtils;

/**
 * Creates fencedlock's tables when the application starts, the way Spring's JDBC-backed modules
 * create theirs ({@code spring.session.jdbc.initialize-schema}): the fence table ({@code
 * fencing-jdbc}'s {@value #FENCE_LOCATION}) in the application's {@link DataSource}, and, when
 * {@code jdbc} is the backend or the fallback, the lock table ({@value #LOCK_LOCATION}) in the
 * database of {@code fencedlock.jdbc.url}, or, for the backend without that URL, in the application's
 * {@link DataSource}.
 *
 * <p>{@code fencedlock.initialize-schema} says where: {@code embedded} (the default: only in an
 * in-memory database, as Spring Boot detects it), {@code always} or {@code never}.
 *
 * <p>How:
 *
 * <ol>
 *   <li>With Flyway on the classpath, a Flyway of its own runs fencedlock's migrations with its own
 *       history table ({@value #FENCE_HISTORY}, {@value #LOCK_HISTORY}), so the application's
 *       Flyway history is not touched and later fencedlock migrations are applied as they come. A
 *       table that exists without that history (created by hand, or by the application's Flyway
 *       before) is taken as version 1. It is skipped where {@code spring.flyway.locations} already
 *       lists the location: the application's Flyway runs it then.
 *   <li>Without Flyway, the location's {@code V*.sql} scripts run in version order, once: only when
 *       the table does not exist yet.
 * </ol>
 *
 * <p>A lock table under another name ({@code fencedlock.jdbc.table}) is left to the application.
 * Unless the mode is {@code never}, every table is then required to exist (the default ones and
 * those under other names alike): a missing one fails the start with {@link
 * FencedLockStartupException} naming it and the setting that creates it.
 *
 * <p>Runs once, when the bean is initialised; not thread-safe and need not be.
 */
final class FencedLockSchemaInitializer implements InitializingBean, BeanClassLoaderAware {
    public static final String FENCE_LOCATION = "classpath:db/fencedlock/migration";
    public static final String FENCE_TABLE = "fencedlock_fence";
    public static final String FENCE_HISTORY = "fencedlock_schema_history";
    public static final String LOCK_LOCATION = "classpath:db/fencedlock/lock/migration";
    public static final String LOCK_TABLE = "fencedlock_lock";
    public static final String LOCK_HISTORY = "fencedlock_lock_schema_history";

    private static final Logger LOG = LoggerFactory.getLogger(FencedLockSchemaInitializer.class);
    private static final String FLYWAY = "org.flywaydb.core.Flyway";

    private final DataSource applicationDataSource;
    private final String fenceTable;
    private final Environment environment;
    private ClassLoader classLoader = FencedLockSchemaInitializer.class.getClassLoader();

    /**
     * @param applicationDataSource the database of the application's transactions; null for none
     * @param fenceTable the fence guard's table; one under another name than {@value #FENCE_TABLE}
     *     is left to the application
     */
    public FencedLockSchemaInitializer(DataSource applicationDataSource, String fenceTable, Environment environment) {
        this.applicationDataSource = applicationDataSource;
        this.fenceTable = fenceTable;
        this.environment = environment;
    }

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
        this.classLoader = classLoader;
    }

    /**
     * A table fencedlock needs, and where.
     *
     * @param location its migrations; null for a table under another name, which is left to the
     *     application
     * @param where the database, as the messages name it
     */
    record Schema(DataSource dataSource, String location, String table, String history, String where) {}

    /**
     * Creates the tables as {@code fencedlock.initialize-schema} says, then, unless it says {@code
     * never}, requires each to exist, so that a missing table fails the start rather than the first
     * locked call. A database that cannot be reached now is logged and not checked.
     *
     * @throws FencedLockStartupException naming the missing table and the setting or migration that
     *     creates it
     */
    @Override
    public void afterPropertiesSet() throws SQLException {
        DatabaseInitializationMode mode = Binder.get(environment)
                .bind(SpringLockConfig.INITIALIZE_SCHEMA, DatabaseInitializationMode.class)
                .orElse(DatabaseInitializationMode.EMBEDDED);
        if (mode == DatabaseInitializationMode.NEVER) {
            return;
        }
        boolean flyway = ClassUtils.isPresent(FLYWAY, classLoader);
        for (Schema schema : schemas()) {
            if (schema.location() != null) {
                create(schema, mode, flyway);
            }
            requireExists(schema, mode);
        }
    }

    private void create(Schema schema, DatabaseInitializationMode mode, boolean flyway) throws SQLException {
        if (mode == DatabaseInitializationMode.EMBEDDED
                && !EmbeddedDatabaseConnection.isEmbedded(schema.dataSource())) {
            LOG.debug(
                    "Not creating {}: not an embedded database ({}=embedded)",
                    schema.table(),
                    SpringLockConfig.INITIALIZE_SCHEMA);
            return;
        }
        if (flyway) {
            if (!applicationFlywayRuns(schema.location())) {
                FlywaySchema.migrate(schema, exists(schema.dataSource(), schema.table()));
            }
        } else if (!exists(schema.dataSource(), schema.table())) {
            ScriptSchema.create(schema);
            LOG.info("Created {} from {}", schema.table(), schema.location());
        }
    }

    private static void requireExists(Schema schema, DatabaseInitializationMode mode) {
        boolean exists;
        try {
            exists = exists(schema.dataSource(), schema.table());
        } catch (SQLException unreachable) {
            LOG.warn(
                    "Could not check that {} exists in {}: {}", schema.table(), schema.where(), unreachable.toString());
            return;
        }
        if (!exists) {
            throw missing(schema, mode);
        }
    }

    /** The failure for a missing table: which table, where, why it was not created, and what creates it. */
    static FencedLockStartupException missing(Schema schema, DatabaseInitializationMode mode) {
        String description = "The table " + schema.table() + " that fencedlock needs is missing in " + schema.where();
        if (schema.location() == null) {
            return new FencedLockStartupException(
                    description + "; the starter creates only its default tables",
                    "Create " + schema.table() + " with the columns of fencedlock's migration for it (see"
                            + " docs/spring.md, \"The tables\"), or set " + SpringLockConfig.INITIALIZE_SCHEMA
                            + "=never if you do not use it",
                    null);
        }
        String why = mode == DatabaseInitializationMode.EMBEDDED
                ? " (" + SpringLockConfig.INITIALIZE_SCHEMA + "=embedded, the default, creates it only in an embedded"
                        + " in-memory database)"
                : "";
        return new FencedLockStartupException(
                description + why,
                "Set " + SpringLockConfig.INITIALIZE_SCHEMA + "=always to create it at start-up, or add "
                        + schema.location() + " to spring.flyway.locations (or run its SQL scripts yourself and set "
                        + SpringLockConfig.INITIALIZE_SCHEMA + "=never)",
                null);
    }

    private List<Schema> schemas() {
        List<Schema> schemas = new ArrayList<>();
        if (applicationDataSource != null) {
            boolean standard = FENCE_TABLE.equalsIgnoreCase(fenceTable);
            schemas.add(new Schema(
                    applicationDataSource,
                    standard ? FENCE_LOCATION : null,
                    standard ? FENCE_TABLE : fenceTable,
                    FENCE_HISTORY,
                    "the application's database (its DataSource bean)"));
        }
        String url = environment.getProperty("fencedlock.jdbc.url");
        String table = environment.getProperty("fencedlock.jdbc.table", LOCK_TABLE);
        boolean standard = table.equals(LOCK_TABLE);
        String location = standard ? LOCK_LOCATION : null;
        if (url != null && isJdbc("fencedlock.backend", "fencedlock.fallback")) {
            DataSource locks = new DriverManagerDataSource(
                    url,
                    environment.getProperty("fencedlock.jdbc.user"),
                    environment.getProperty("fencedlock.jdbc.password"));
            schemas.add(new Schema(locks, location, table, LOCK_HISTORY, "the database of fencedlock.jdbc.url"));
        } else if (url == null && applicationDataSource != null && isJdbc("fencedlock.backend")) {
            schemas.add(new Schema(
                    applicationDataSource,
                    location,
                    table,
                    LOCK_HISTORY,
                    "the application's database, where fencedlock.backend=jdbc keeps its locks"));
        }
        return schemas;
    }

    private boolean isJdbc(String... keys) {
        for (String key : keys) {
            if ("jdbc".equals(environment.getProperty(key))) {
                return true;
            }
        }
        return false;
    }

    private boolean applicationFlywayRuns(String location) {
        List<String> locations = Binder.get(environment)
                .bind("spring.flyway.locations", Bindable.listOf(String.class))
                .orElseGet(List::of);
        String path = location.substring("classpath:".length());
        boolean listed = locations.stream().anyMatch(listedLocation -> listedLocation.contains(path));
        if (listed) {
            LOG.debug("spring.flyway.locations lists {}: the application's Flyway creates it", path);
        }
        return listed && environment.getProperty("spring.flyway.enabled", Boolean.class, true);
    }

    /** Whether {@code table} is visible to the data source's connections (their current schema). */
    static boolean exists(DataSource dataSource, String table) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            try {
                statement
                        .executeQuery("select 1 from " + table + " where 1 = 0")
                        .close();
                return true;
            } catch (SQLException missing) {
                return false;
            }
        }
    }
}
