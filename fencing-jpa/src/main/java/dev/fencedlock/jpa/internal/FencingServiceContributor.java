package dev.fencedlock.jpa.internal;

import java.util.Map;
import org.hibernate.boot.registry.StandardServiceInitiator;
import org.hibernate.boot.registry.StandardServiceRegistryBuilder;
import org.hibernate.cfg.JdbcSettings;
import org.hibernate.engine.jdbc.connections.internal.ConnectionProviderInitiator;
import org.hibernate.engine.jdbc.connections.spi.ConnectionProvider;
import org.hibernate.resource.jdbc.spi.StatementInspector;
import org.hibernate.resource.transaction.internal.TransactionCoordinatorBuilderInitiator;
import org.hibernate.resource.transaction.spi.TransactionCoordinatorBuilder;
import org.hibernate.service.spi.ServiceContributor;
import org.hibernate.service.spi.ServiceRegistryImplementor;

/**
 * Installs the hooks of fencing into every Hibernate service registry (registered through
 * {@code META-INF/services/org.hibernate.service.spi.ServiceContributor}, so the application adds
 * no setting):
 *
 * <ol>
 *   <li>the transaction coordinator builder Hibernate would use, wrapped so that every transaction
 *       begins with the fence guard ({@link GuardingTransactionCoordinatorBuilder});
 *   <li>the connection provider Hibernate would use, wrapped so that on PostgreSQL the guard can
 *       travel with the transaction's first statement ({@link GuardingConnectionProvider}); none
 *       under multi-tenancy, where Hibernate uses a multi-tenant provider instead and the guard stays
 *       a statement of its own;
 *   <li>a statement inspector that refuses writes to fenced tables outside a fenced transaction
 *       ({@link FencedWriteInspector}), wrapped around the application's own inspector if {@code
 *       hibernate.session_factory.statement_inspector} names one.
 * </ol>
 */
public final class FencingServiceContributor implements ServiceContributor {

    @Override
    public void contribute(StandardServiceRegistryBuilder registry) {
        registry.addInitiator(new StandardServiceInitiator<TransactionCoordinatorBuilder>() {
            @Override
            public TransactionCoordinatorBuilder initiateService(
                    Map<String, Object> settings, ServiceRegistryImplementor services) {
                return new GuardingTransactionCoordinatorBuilder(
                        TransactionCoordinatorBuilderInitiator.INSTANCE.initiateService(settings, services),
                        FencingConfiguration.table(settings));
            }

            @Override
            public Class<TransactionCoordinatorBuilder> getServiceInitiated() {
                return TransactionCoordinatorBuilder.class;
            }
        });
        registry.addInitiator(new StandardServiceInitiator<ConnectionProvider>() {
            @Override
            public ConnectionProvider initiateService(
                    Map<String, Object> settings, ServiceRegistryImplementor services) {
                ConnectionProvider provider = ConnectionProviderInitiator.INSTANCE.initiateService(settings, services);
                return provider == null ? null : new GuardingConnectionProvider(provider);
            }

            @Override
            public Class<ConnectionProvider> getServiceInitiated() {
                return ConnectionProvider.class;
            }
        });
        Object own = registry.getSettings().get(JdbcSettings.STATEMENT_INSPECTOR);
        if (!(own instanceof FencedWriteInspector)) {
            registry.applySetting(
                    JdbcSettings.STATEMENT_INSPECTOR, new FencedWriteInspector(applicationInspector(own)));
        }
    }

    private static StatementInspector applicationInspector(Object setting) {
        if (setting == null || setting instanceof StatementInspector) {
            return (StatementInspector) setting;
        }
        try {
            Class<?> type = setting instanceof Class<?> c
                    ? c
                    : Class.forName(
                            setting.toString().trim(),
                            true,
                            Thread.currentThread().getContextClassLoader());
            return (StatementInspector) type.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalArgumentException(
                    JdbcSettings.STATEMENT_INSPECTOR
                            + " must name a StatementInspector with a public no-argument constructor, got '" + setting
                            + "'",
                    e);
        }
    }
}
