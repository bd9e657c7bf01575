package dev.fencedlock.jpa.internal;

import java.util.Set;
import org.hibernate.StatelessSession;
import org.hibernate.event.spi.AbstractPreDatabaseOperationEvent;
import org.hibernate.event.spi.PreDeleteEvent;
import org.hibernate.event.spi.PreDeleteEventListener;
import org.hibernate.event.spi.PreInsertEvent;
import org.hibernate.event.spi.PreInsertEventListener;
import org.hibernate.event.spi.PreUpdateEvent;
import org.hibernate.event.spi.PreUpdateEventListener;
import org.hibernate.event.spi.PreUpsertEvent;
import org.hibernate.event.spi.PreUpsertEventListener;

/**
 * Refuses inserts, updates, upserts and deletes of fenced entities through a {@link
 * StatelessSession}, which runs no JPA entity listener: the fence would not be stamped. Immutable
 * and thread-safe.
 */
final class StatelessWriteRefusal
        implements PreInsertEventListener, PreUpdateEventListener, PreUpsertEventListener, PreDeleteEventListener {
    private static final long serialVersionUID = 1L;

    private final Set<String> fencedEntities;

    StatelessWriteRefusal(Set<String> fencedEntities) {
        this.fencedEntities = Set.copyOf(fencedEntities);
    }

    @Override
    public boolean onPreInsert(PreInsertEvent event) {
        return refuse(event, "inserted");
    }

    @Override
    public boolean onPreUpdate(PreUpdateEvent event) {
        return refuse(event, "updated");
    }

    @Override
    public boolean onPreUpsert(PreUpsertEvent event) {
        return refuse(event, "upserted");
    }

    @Override
    public boolean onPreDelete(PreDeleteEvent event) {
        return refuse(event, "deleted");
    }

    /** Never vetoes: a write it does not refuse goes ahead. */
    private boolean refuse(AbstractPreDatabaseOperationEvent event, String done) {
        String entity = event.getPersister().getEntityName();
        if (event.getSession() instanceof StatelessSession && fencedEntities.contains(entity)) {
            throw new UnsupportedOperationException("Fenced entity " + entity + "#" + event.getId() + " cannot be "
                    + done + " through a StatelessSession: it runs no entity listener, so the fence would "
                    + "not be stamped; use a Session or EntityManager");
        }
        return false;
    }
}
