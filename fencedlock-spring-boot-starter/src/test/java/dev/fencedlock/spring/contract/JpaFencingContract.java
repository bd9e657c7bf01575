package dev.fencedlock.spring.contract;

import dev.fencedlock.Lease;
import dev.fencedlock.jpa.Fencing;
import dev.fencedlock.jpa.FencingScope;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.EntityTransaction;
import jakarta.persistence.Query;
import javax.sql.DataSource;
import org.hibernate.jpa.HibernatePersistenceConfiguration;

/**
 * The contract through fencing-jpa: {@link Fencing#bind} around a resource-local {@code
 * EntityManager} transaction whose body writes with native SQL.
 */
abstract class JpaFencingContract extends FencedTransactionContract {
    private EntityManagerFactory factory;

    /** The guard; Hibernate's commit goes through the fence, which puts the session back in its round trip. */
    @Override
    protected int extraRoundTripsOnMariaDb() {
        return 1;
    }

    @Override
    protected void openAdapter(DataSource dataSource) {
        factory = new HibernatePersistenceConfiguration("contract-" + getClass().getSimpleName())
                .property("jakarta.persistence.nonJtaDataSource", dataSource)
                .createEntityManagerFactory();
    }

    @Override
    protected void closeAdapter() {
        if (factory != null) {
            factory.close();
        }
    }

    @Override
    protected <T> T fenced(Lease lease, Body<T> body) throws Exception {
        try (FencingScope scope = Fencing.bind(lease)) {
            return inTransaction(body);
        }
    }

    @Override
    protected <T> T unfenced(Body<T> body) throws Exception {
        return inTransaction(body);
    }

    private <T> T inTransaction(Body<T> body) throws Exception {
        EntityManager em = factory.createEntityManager();
        EntityTransaction transaction = em.getTransaction();
        try {
            transaction.begin();
            T result = body.run(nativeSql(em));
            transaction.commit();
            return result;
        } finally {
            if (transaction.isActive()) {
                transaction.rollback();
            }
            em.close();
        }
    }

    private static Tx nativeSql(EntityManager em) {
        return new Tx() {
            @Override
            public int update(String sql, long... parameters) {
                return query(em, sql, parameters).executeUpdate();
            }

            @Override
            public long queryLong(String sql, long... parameters) {
                return ((Number) query(em, sql, parameters).getSingleResult()).longValue();
            }
        };
    }

    private static Query query(EntityManager em, String sql, long... parameters) {
        Query query = em.createNativeQuery(sql);
        for (int i = 0; i < parameters.length; i++) {
            query.setParameter(i + 1, parameters[i]);
        }
        return query;
    }
}
