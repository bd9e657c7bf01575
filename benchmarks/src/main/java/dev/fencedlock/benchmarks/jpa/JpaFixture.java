package dev.fencedlock.benchmarks.jpa;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencedlock.benchmarks.BenchEnv;
import dev.fencedlock.jdbc.FencedTables;
import dev.fencedlock.jpa.FencingSettings;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.EntityTransaction;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.hibernate.jpa.HibernatePersistenceConfiguration;

/**
 * One database and entity manager factory for an update benchmark: a small HikariCP pool, the
 * entity's table dropped and created by Hibernate, and one row per benchmark thread. The fenced
 * and the {@code @Version} benchmark both go through {@link #update}, so the only difference
 * between them is the entity's mapping and the lease binding around the call.
 */
public final class JpaFixture implements AutoCloseable {
    /** The databases an update benchmark runs on, as used in {@code @Param} values. */
    public static final String H2 = "h2";

    public static final String POSTGRESQL = "postgresql";

    private final HikariDataSource dataSource;
    private final EntityManagerFactory factory;

    private JpaFixture(HikariDataSource dataSource, EntityManagerFactory factory) {
        this.dataSource = dataSource;
        this.factory = factory;
    }

    /** Opens {@code database} ({@value #H2} or {@value #POSTGRESQL}) with a fresh table for {@code entity}. */
    public static JpaFixture open(String database, Class<?> entity) {
        HikariConfig pool = new HikariConfig();
        switch (database) {
            case H2 -> pool.setJdbcUrl("jdbc:h2:mem:bench;DB_CLOSE_DELAY=-1");
            case POSTGRESQL -> {
                pool.setJdbcUrl(BenchEnv.postgresUrl());
                pool.setUsername(BenchEnv.postgresUser());
            }
            default ->
                throw new IllegalArgumentException(
                        "unknown database '" + database + "'; expected " + H2 + " or " + POSTGRESQL);
        }
        pool.setMaximumPoolSize(4);
        pool.setPoolName("bench-" + database);
        HikariDataSource dataSource = new HikariDataSource(pool);
        try {
            EntityManagerFactory factory = new HibernatePersistenceConfiguration("bench-" + entity.getSimpleName())
                    .managedClass(entity)
                    .property("hibernate.connection.datasource", dataSource)
                    .property("jakarta.persistence.schema-generation.database.action", "drop-and-create")
                    // a benchmark that measures protection protects its table itself, with protect(table)
                    .property(FencingSettings.PROTECTED_TABLES, "off")
                    .createEntityManagerFactory();
            createFenceTable(dataSource);
            return new JpaFixture(dataSource, factory);
        } catch (RuntimeException e) {
            dataSource.close();
            throw e;
        }
    }

    /** The fence table of fencing-jdbc's migration, fresh: the guard of a fenced transaction writes it. */
    private static void createFenceTable(DataSource dataSource) {
        try (InputStream in =
                        JpaFixture.class.getResourceAsStream("/db/fencedlock/migration/V1__fencedlock_fence.sql");
                Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("drop table if exists fencedlock_fence");
            statement.execute(new String(in.readAllBytes(), StandardCharsets.UTF_8).replaceAll("(?m)^--.*$", ""));
        } catch (IOException | SQLException e) {
            throw new IllegalStateException("cannot create the fence table", e);
        }
    }

    /** Protects {@code table} with the database's trigger ({@link FencedTables#protect}). */
    public void protect(String table) {
        try {
            FencedTables.protect(dataSource, table);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot protect " + table, e);
        }
    }

    /** Inserts {@code row} in its own transaction. */
    public void insert(Object row) {
        inTransaction(em -> em.persist(row));
    }

    /** Loads row {@code id}, applies {@code change} and commits: one read and one UPDATE. */
    public <T> void update(Class<T> entity, long id, Consumer<T> change) {
        inTransaction(em -> {
            T row = em.find(entity, id);
            if (row == null) {
                throw new IllegalStateException(entity.getSimpleName() + " " + id + " is missing");
            }
            change.accept(row);
        });
    }

    /** Row {@code id} as committed, read in a fresh persistence context. */
    public <T> T read(Class<T> entity, long id) {
        EntityManager em = factory.createEntityManager();
        try {
            return em.find(entity, id);
        } finally {
            em.close();
        }
    }

    private void inTransaction(Consumer<EntityManager> work) {
        EntityManager em = factory.createEntityManager();
        EntityTransaction tx = em.getTransaction();
        try {
            tx.begin();
            work.accept(em);
            tx.commit();
        } finally {
            if (tx.isActive()) {
                tx.rollback();
            }
            em.close();
        }
    }

    @Override
    public void close() {
        try {
            factory.close();
        } finally {
            dataSource.close();
        }
    }
}
