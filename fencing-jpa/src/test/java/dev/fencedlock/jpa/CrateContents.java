package dev.fencedlock.jpa;

import jakarta.persistence.CollectionTable;
import jakarta.persistence.Column;
import jakarta.persistence.ElementCollection;
import jakarta.persistence.Embeddable;
import jakarta.persistence.FetchType;
import jakarta.persistence.JoinColumn;
import java.util.HashSet;
import java.util.Set;
import org.hibernate.annotations.OptimisticLock;

/** An embedded value of {@link Crate} holding an element collection excluded from optimistic locking. */
@Embeddable
public class CrateContents {
    @ElementCollection(fetch = FetchType.EAGER)
    @CollectionTable(name = "crate_part", joinColumns = @JoinColumn(name = "crate_id"))
    @Column(name = "part")
    @OptimisticLock(excluded = true)
    private Set<String> parts = new HashSet<>();

    public Set<String> parts() {
        return parts;
    }
}
