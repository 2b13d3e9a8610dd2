"""What every kind's rendering shares: the records (`base`), the pod template of each
role (`roles`, `pod`, `volumes`), run fields per target (`runpolicy`), derived names,
claims and TensorBoard; `job.render_job` asks the job's kind for the rest."""
