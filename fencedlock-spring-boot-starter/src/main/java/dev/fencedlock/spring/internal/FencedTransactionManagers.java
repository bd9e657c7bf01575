package dev.fencedlock.spring.internal;

import dev.fencedlock.jdbc.FenceTable;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.util.ClassUtils;

/**
 * Adds a {@link FenceGuardListener} to every transaction manager of the context, whoever created
 * it (Spring Boot or the application), so that no transaction begun under a lock escapes the
 * fence.
 */
final class FencedTransactionManagers implements BeanPostProcessor {
    private static final boolean JPA = ClassUtils.isPresent(
            "org.springframework.orm.jpa.JpaTransactionManager", FencedTransactionManagers.class.getClassLoader());

    private final Supplier<FenceTable> table;

    public FencedTransactionManagers(Supplier<FenceTable> table) {
        this.table = table;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof AbstractPlatformTransactionManager manager) {
            manager.addListener(new FenceGuardListener(manager, dataSourceOf(manager), table.get()));
        }
        return bean;
    }

    private static DataSource dataSourceOf(AbstractPlatformTransactionManager manager) {
        if (manager instanceof DataSourceTransactionManager jdbc) {
            return jdbc.getDataSource();
        }
        if (JPA && manager instanceof JpaTransactionManager jpa) {
            return jpa.getDataSource();
        }
        return null;
    }
}
