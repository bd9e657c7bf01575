package dev.fencedlock.jpa.internal;

import java.util.Map;
import org.hibernate.boot.registry.StandardServiceInitiator;
import org.hibernate.boot.registry.StandardServiceRegistryBuilder;
import org.hibernate.cfg.JdbcSettings;
import org.hibernate.resource.jdbc.spi.StatementInspector;
import org.hibernate.resource.transaction.internal.TransactionCoordinatorBuilderInitiator;
import org.hibernate.resource.transaction.spi.TransactionCoordinatorBuilder;
import org.hibernate.service.spi.ServiceContributor;
import org.hibernate.service.spi.ServiceRegistryImplementor;

/**
 * Installs the two hooks of fencing into every Hibernate service registry (registered through
 * {@code META-INF/services/org.hibernate.service.spi.ServiceContributor}, so the application adds
 * no setting):
 *
 * <ol>
 *   <li>the transaction coordinator builder Hibernate would use, wrapped so that every transaction
 *       begins with the fence guard ({@link GuardingTransactionCoordinatorBuilder});
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
                        FencingConfiguration.guard(settings));
            }

            @Override
            public Class<TransactionCoordinatorBuilder> getServiceInitiated() {
                return TransactionCoordinatorBuilder.class;
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
