package dev.fencedlock.jpa;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencedlock.testkit.db.TestDatabase;
import jakarta.persistence.EntityManagerFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.hibernate.jpa.HibernatePersistenceConfiguration;

/**
 * A private schema on one test database ({@link TestDatabase}), migrated with fencing-jdbc's fence
 * row and this module's test tables, and entity manager factories of the test entities on it.
 * Everything opened here is closed by {@link #close()}, the schema last.
 */
final class FencedUnit implements AutoCloseable {
    static final List<Class<?>> ENTITIES = List.of(
            Item.class,
            Label.class,
            Note.class,
            Shelf.class,
            LegacyStock.class,
            LogEntry.class,
            Crate.class,
            Pen.class,
            SoftItem.class);

    final TestDatabase db;
    final EntityManagerFactory emf;
    private final List<AutoCloseable> opened = new ArrayList<>();

    private FencedUnit(TestDatabase.Kind kind, String prefix) {
        db = TestDatabase.create(kind, prefix, 12).migrate("classpath:db/fencedlock/migration", "classpath:db/fencing");
        emf = factory(db.dataSource(), Map.of());
    }

    static FencedUnit open(TestDatabase.Kind kind) {
        return open(kind, "fjpa");
    }

    /** As {@link #open(TestDatabase.Kind)}, in a schema whose name starts with {@code prefix}. */
    static FencedUnit open(TestDatabase.Kind kind, String prefix) {
        return new FencedUnit(kind, prefix);
    }

    /** A factory of the test entities on {@code dataSource}, closed with this unit. */
    EntityManagerFactory factory(DataSource dataSource, Map<String, Object> properties) {
        return factory(dataSource, properties, List.of());
    }

    /**
     * {@link #factory(DataSource, Map)} with {@code more} entities, whose tables the caller makes.
     */
    EntityManagerFactory factory(DataSource dataSource, Map<String, Object> properties, List<Class<?>> more) {
        List<Class<?>> entities = new ArrayList<>(ENTITIES);
        entities.addAll(more);
        HibernatePersistenceConfiguration configuration = new HibernatePersistenceConfiguration(
                        "fencing-" + db.schema())
                .managedClasses(entities)
                .property("jakarta.persistence.nonJtaDataSource", dataSource)
                // batching on, as many applications run it
                .property("hibernate.jdbc.batch_size", 20);
        properties.forEach(configuration::property);
        EntityManagerFactory factory = configuration.createEntityManagerFactory();
        opened.add(factory);
        return factory;
    }

    /**
     * A factory whose connections run at {@code isolation} ({@code java.sql.Connection} constant
     * name, e.g. {@code TRANSACTION_REPEATABLE_READ}), or at the database's default if null.
     */
    EntityManagerFactory factoryAt(String isolation) {
        if (isolation == null) {
            return emf;
        }
        return factory(pool(isolation, true), Map.of());
    }

    /**
     * A factory whose pool hands out connections with autocommit off at {@code isolation} ({@code
     * java.sql.Connection} constant name), and whose sessions hold their connection from first use
     * to close ({@code DELAYED_ACQUISITION_AND_HOLD}, as Spring's JPA vendor adapter sets it).
     */
    EntityManagerFactory heldConnectionsWithoutAutocommit(String isolation) {
        return heldConnectionsWithoutAutocommit(isolation, Map.of());
    }

    /** {@link #heldConnectionsWithoutAutocommit(String)} with further Hibernate {@code properties}. */
    EntityManagerFactory heldConnectionsWithoutAutocommit(String isolation, Map<String, Object> properties) {
        Map<String, Object> all = new java.util.HashMap<>(properties);
        all.put("hibernate.connection.handling_mode", "DELAYED_ACQUISITION_AND_HOLD");
        return factory(pool(isolation, false), all);
    }

    private DataSource pool(String isolation, boolean autoCommit) {
        return pool(isolation, autoCommit, 4);
    }

    /**
     * A pool of at most {@code size} connections with {@code autoCommit} at {@code isolation}
     * ({@code java.sql.Connection} constant name, or null for the database's default), closed with
     * this unit.
     */
    HikariDataSource pool(String isolation, boolean autoCommit, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.jdbcUrl());
        config.setUsername(db.user());
        config.setPassword(db.password());
        config.setMaximumPoolSize(size);
        config.setAutoCommit(autoCommit);
        config.setTransactionIsolation(isolation);
        HikariDataSource pool = new HikariDataSource(config);
        opened.add(pool);
        return pool;
    }

    @Override
    public void close() {
        try {
            for (int i = opened.size() - 1; i >= 0; i--) {
                try {
                    opened.get(i).close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        } finally {
            db.close();
        }
    }
}
