package dev.fencedlock.spring.internal;

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
 * database of {@code fencedlock.jdbc.url}.
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
 * Runs once, when the bean is initialised; not thread-safe and need not be.
 */
public final class FencedLockSchemaInitializer implements InitializingBean, BeanClassLoaderAware {
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

    /** A table this initializer looks after, and where. */
    record Schema(DataSource dataSource, String location, String table, String history) {}

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
            if (mode == DatabaseInitializationMode.EMBEDDED
                    && !EmbeddedDatabaseConnection.isEmbedded(schema.dataSource())) {
                LOG.debug(
                        "Not creating {}: not an embedded database ({}=embedded)",
                        schema.table(),
                        SpringLockConfig.INITIALIZE_SCHEMA);
                continue;
            }
            if (flyway) {
                if (applicationFlywayRuns(schema.location())) {
                    continue;
                }
                FlywaySchema.migrate(schema, exists(schema.dataSource(), schema.table()));
            } else if (!exists(schema.dataSource(), schema.table())) {
                ScriptSchema.create(schema);
                LOG.info("Created {} from {}", schema.table(), schema.location());
            }
        }
    }

    private List<Schema> schemas() {
        List<Schema> schemas = new ArrayList<>();
        if (applicationDataSource != null && FENCE_TABLE.equalsIgnoreCase(fenceTable)) {
            schemas.add(new Schema(applicationDataSource, FENCE_LOCATION, FENCE_TABLE, FENCE_HISTORY));
        }
        boolean jdbcBackend = "jdbc".equals(environment.getProperty("fencedlock.backend"))
                || "jdbc".equals(environment.getProperty("fencedlock.fallback"));
        String url = environment.getProperty("fencedlock.jdbc.url");
        String table = environment.getProperty("fencedlock.jdbc.table", LOCK_TABLE);
        if (jdbcBackend && url != null && table.equals(LOCK_TABLE)) {
            DataSource locks = new DriverManagerDataSource(
                    url,
                    environment.getProperty("fencedlock.jdbc.user"),
                    environment.getProperty("fencedlock.jdbc.password"));
            schemas.add(new Schema(locks, LOCK_LOCATION, LOCK_TABLE, LOCK_HISTORY));
        }
        return schemas;
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
