# Boundary (zero-variance) clmm fits for tests/core/test_stats_ordinal.py, on the lme4
# references' data set without a participant effect. Run once from the repository root:
#   Rscript tests/analysis/data/clmm/make_boundary_reference.R
# It writes boundary.json; the tests never regenerate it.
suppressPackageStartupMessages({
  library(ordinal)
  library(jsonlite)
})
d <- read.csv("tests/analysis/data/lme4/no_participant_effect.csv")
d$order <- factor(d$order, ordered = TRUE)
d$participant <- factor(d$participant)
d$item <- factor(d$item)
d$group <- factor(d$group, levels = c("hypothesis", "order", "swap", "phrase", "choice"))
summary_of <- function(name, formula) {
  fit <- clmm(formula, data = d, link = "logit", threshold = "flexible")
  list(
    name = name,
    formula = deparse(formula),
    n_obs = fit$dims$nobs,
    thresholds = as.list(fit$alpha),
    fixef = as.list(fit$beta),
    variances = as.list(sapply(VarCorr(fit), function(v) as.numeric(v[1, 1]))),
    loglik = as.numeric(logLik(fit))
  )
}
fits <- list(
  summary_of("no_participant_effect_participant", order ~ 1 + (1 | participant)),
  summary_of("no_participant_effect_crossed", order ~ group + (1 | participant) + (1 | item))
)
writeLines(toJSON(list(ordinal_version = as.character(packageVersion("ordinal")), fits = fits),
                  auto_unbox = TRUE, digits = NA, pretty = TRUE, null = "null"),
           "tests/analysis/data/clmm/boundary.json")
