"""Privacy accounting for correlated records: dependency graphs, Markov quilts, max-influence, Zhao Lemmas 2-4.

Direction of every lemma (Zhao 2017, section 5.1): eps-Bayesian DP <== eps'-DP. ``dp_level_for_bdp`` returns eps'
(the DP level that implies a BDP target); ``bdp_level_for_dp`` inverts it (the BDP level an eps'-DP mechanism gets).
"""

from adaptive_repro.privacy.graphs import markov_blanket, markov_chain_graph, moralize
from adaptive_repro.privacy.influence import (
                                               ChainInfluence,
                                               b_bruteforce,
                                               chain_joint,
                                               data_model_matrix,
                                               is_reversible,
                                               max_influence_bruteforce,
                                               spectral_gap,
                                               stationary_distribution,
                                               symmetric_chain_matrix,
)
from adaptive_repro.privacy.lemmas import (
                                               METHODS,
                                               ConversionResult,
                                               Lemma4Terms,
                                               bdp_level_for_dp,
                                               binary_chain,
                                               convert_chain,
                                               data_model_chain,
                                               dp_level_for_bdp,
                                               lemma2_eps_bdp,
                                               lemma2_eps_dp,
                                               lemma2_general,
                                               lemma3_blanket_influence,
                                               lemma3_eps_bdp,
                                               lemma3_eps_dp,
                                               lemma4_chain_constants,
                                               lemma4_eps_bdp,
                                               lemma4_eps_dp,
                                               lemma4_h,
)
from adaptive_repro.privacy.quilts import (
                                               ChainQuilt,
                                               Quilt,
                                               chain_quilts,
                                               enumerate_quilts,
                                               is_markov_quilt,
                                               quilt_from_set,
)

__all__ = [name for name in dir() if not name.startswith("_")]
